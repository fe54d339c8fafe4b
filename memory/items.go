package memory

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
	"golang.org/x/sync/errgroup"
)

// Item search bounds: a search by namespace prefix reads every item below
// the prefix (to filter them and to list those the query does not rank), so
// it refuses prefixes that span more than these.
const (
	// MaxItemSearchNamespaces bounds the namespaces with items one item
	// search may span.
	MaxItemSearchNamespaces = 1000
	// MaxItemSearchScan bounds the items one item search may read.
	MaxItemSearchScan = 100_000
	// DefaultItemSearchLimit is the page size when none is given.
	DefaultItemSearchLimit = 10
	// itemSearchParallel is how many namespaces an item search queries at once.
	itemSearchParallel = 4
	// itemPage is the page size of item listings.
	itemPage = 1000
)

// PutItemRequest writes one item.
type PutItemRequest struct {
	Namespace kgmem.Namespace
	Key       string
	// Value is a JSON object.
	Value json.RawMessage
	// Index lists the value's fields whose text is searched (see
	// kgmem.ItemText): nil indexes the whole value, an empty non-nil slice
	// nothing (the item is listed and filtered, never ranked).
	Index []string
	// Extract turns the item's text into facts with the configured LLM,
	// the item as their provenance (itemfacts.go).
	Extract bool
	// TTL is the item's time to live in minutes (kgmem.CheckItemTTL): it
	// expires that long after this put, or after a read that refreshes it;
	// nil never expires.
	TTL *float64
}

// ItemRead says how a read treats items with a TTL.
type ItemRead struct {
	// RefreshTTL extends the expiry of each live item returned to its TTL
	// from now, as LangGraph's refresh_ttl does.
	RefreshTTL bool
	// IncludeExpired also returns the items that expired and the TTL
	// sweeper has not deleted yet (LangGraph's omit_expired false); they
	// are never refreshed.
	IncludeExpired bool
}

// PutItemResult is the item as stored, whether the put created it, and
// what it did to facts: those extracted from its text, and those its
// previous version stated that it no longer does.
type PutItemResult struct {
	Item    kgmem.Item
	Created bool
	// Facts reports every change to facts, as an ingest does.
	Facts    []kgmem.FactChange
	Usage    kgmem.LLMUsage
	Warnings []string
}

// ItemResult is an item found by a search. Score is nil for an item listed
// without being ranked (no query, or the query did not find it).
type ItemResult struct {
	kgmem.Item
	Score *Score `json:"score"`
}

// PutItem upserts the item (namespace, key): a new key is created, an
// existing one overwritten (its created_at kept, the overwrite counted as a
// restatement by the forgetting curve). Its text is embedded and indexed
// like any record's, through the vector outbox.
func (e *Engine) PutItem(ctx context.Context, req PutItemRequest) (PutItemResult, error) {
	if _, err := kgmem.ParseNamespace(string(req.Namespace)); err != nil {
		return PutItemResult{}, err
	}
	if err := kgmem.CheckItemKey("key", req.Key); err != nil {
		return PutItemResult{}, err
	}
	if err := kgmem.CheckItemValue("value", req.Value); err != nil {
		return PutItemResult{}, err
	}
	if err := kgmem.CheckItemTTL("ttl", req.TTL); err != nil {
		return PutItemResult{}, err
	}
	text, err := kgmem.ItemText(req.Value, req.Index)
	if err != nil {
		return PutItemResult{}, err
	}
	if req.Extract && e.extractor == nil {
		return PutItemResult{}, ErrExtractionDisabled
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, req.Value); err != nil {
		return PutItemResult{}, kgmem.Invalidf("value", "is not valid JSON: %v", err)
	}
	ns := req.Namespace
	model, err := e.models(ctx, ns)
	if err != nil {
		return PutItemResult{}, fmt.Errorf("decay parameters of %q: %w", ns, err)
	}
	now := e.now()
	it := kgmem.Item{ID: kgmem.ItemID(ns, req.Key), Namespace: ns, Key: req.Key, Value: compact.Bytes(), Text: text,
		CreatedAt: now, UpdatedAt: now, Decay: model.Initial(0, now), ExpiresAt: kgmem.ExpiryAfter(req.TTL, now)}
	if req.TTL != nil {
		it.TTL = *req.TTL
	}
	// The LLM call is made before taking the namespace's lock, as ingest does.
	var x *extraction
	var warnings []string
	switch {
	case req.Extract && text != "":
		x = e.extractItem(ctx, it)
	case req.Extract:
		warnings = append(warnings, "the item has no text to extract facts from (index is false or selects nothing)")
	}
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return PutItemResult{}, err
	}
	defer unlock()
	old, err := e.graph.Items(ctx, ns, []string{it.ID})
	if err != nil {
		return PutItemResult{}, fmt.Errorf("read item: %w", err)
	}
	var stale []string
	if len(old) == 1 {
		stale = old[0].FactIDs
	}
	// An expired item the sweeper has not deleted yet is replaced as if
	// it were gone: the put creates the key anew.
	live := len(old) == 1 && !old[0].Expired(now)
	if live {
		it.CreatedAt = old[0].CreatedAt
		it.Decay = model.Reinforce(old[0].Decay, 0, now)
	}
	facts := itemFactChanges{cs: kgmem.ChangeSet{Namespace: ns}, changes: []kgmem.FactChange{}}
	if x != nil || len(stale) > 0 {
		if facts, err = e.itemFacts(ctx, &it, stale, x, now); err != nil {
			return PutItemResult{}, err
		}
	}
	cs := facts.cs
	cs.Items = []kgmem.Item{it}
	if err := e.write(ctx, cs); err != nil {
		return PutItemResult{}, err
	}
	syncChanges(facts.changes, cs.Facts)
	if x != nil {
		e.metrics.ingested(0, facts.changes, facts.usage)
	}
	return PutItemResult{Item: it, Created: !live, Facts: facts.changes, Usage: facts.usage,
		Warnings: nonNil(append(warnings, facts.warnings...))}, nil
}

// Item returns the item (namespace, key), or an error wrapping
// kgmem.ErrNotFound; an expired item is not found unless read includes
// it.
func (e *Engine) Item(ctx context.Context, ns kgmem.Namespace, key string, read ItemRead) (kgmem.Item, error) {
	if err := kgmem.CheckItemKey("key", key); err != nil {
		return kgmem.Item{}, err
	}
	items, err := e.graph.Items(ctx, ns, []string{kgmem.ItemID(ns, key)})
	if err != nil {
		return kgmem.Item{}, fmt.Errorf("read item: %w", err)
	}
	now := e.now()
	if len(items) == 0 || (items[0].Expired(now) && !read.IncludeExpired) {
		return kgmem.Item{}, kgmem.NotFoundf("key", "no item with key %q in namespace %q", key, ns)
	}
	if read.RefreshTTL {
		if err := e.refreshItems(ctx, ns, items, now); err != nil {
			return kgmem.Item{}, err
		}
	}
	return items[0], nil
}

// refreshItems extends the expiry of the live items of ns with a TTL to
// their TTL from now, in the graph and in items.
func (e *Engine) refreshItems(ctx context.Context, ns kgmem.Namespace, items []kgmem.Item, now time.Time) error {
	var expiries []kgmem.ItemExpiry
	for i := range items {
		it := &items[i]
		if it.ExpiresAt == nil || it.Expired(now) {
			continue
		}
		it.ExpiresAt = kgmem.ExpiryAfter(&it.TTL, now)
		expiries = append(expiries, kgmem.ItemExpiry{ID: it.ID, ExpiresAt: *it.ExpiresAt})
	}
	if len(expiries) == 0 {
		return nil
	}
	if err := e.graph.RefreshItems(ctx, ns, expiries, now); err != nil {
		return fmt.Errorf("refresh the TTL of %d items: %w", len(expiries), err)
	}
	return nil
}

// DeleteItem hard-deletes the item (namespace, key) and its vector; an
// error wrapping kgmem.ErrNotFound when there is none. Facts extracted from
// it lose it as a source first: those it alone stated are invalidated
// (kept as history), the others keep their other sources.
func (e *Engine) DeleteItem(ctx context.Context, ns kgmem.Namespace, key string) error {
	if err := kgmem.CheckItemKey("key", key); err != nil {
		return err
	}
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return err
	}
	defer unlock()
	id := kgmem.ItemID(ns, key)
	old, err := e.graph.Items(ctx, ns, []string{id})
	if err != nil {
		return fmt.Errorf("read item: %w", err)
	}
	if len(old) == 0 {
		// Not in the graph: its vector, should one be left, goes all the
		// same, and the graph's answer is the 404.
		return e.deleteItem(ctx, kgmem.Item{ID: id, Namespace: ns, Key: key})
	}
	return e.deleteItem(ctx, old[0])
}

// deleteItem hard-deletes it and its vector, its facts losing it as a
// source first; the caller holds the namespace's lock.
func (e *Engine) deleteItem(ctx context.Context, it kgmem.Item) error {
	ns, key := it.Namespace, it.Key
	if len(it.FactIDs) > 0 {
		facts, err := e.itemFacts(ctx, &it, it.FactIDs, nil, e.now())
		if err != nil {
			return err
		}
		if err := e.write(ctx, facts.cs); err != nil {
			return fmt.Errorf("update the facts of item %q: %w", key, err)
		}
	}
	keys := []kgmem.VectorKey{{Kind: kgmem.KindItem, ID: it.ID}}
	return e.guardedWrite(ctx, deleteOps(ns, keys),
		func() error {
			err := e.graph.DeleteItem(ctx, ns, it.ID)
			if errors.Is(err, kgmem.ErrNotFound) {
				return kgmem.NotFoundf("key", "no item with key %q in namespace %q", key, ns)
			}
			if err != nil {
				return fmt.Errorf("delete item %q: %w", key, err)
			}
			return nil
		},
		func(ctx context.Context) error { return e.writeVectors(ctx, ns, nil, keys) })
}

// ItemNamespaces lists the namespaces with items that prefix covers (every
// one when prefix is empty), sorted: those holding a live item, or any
// item when includeExpired.
func (e *Engine) ItemNamespaces(ctx context.Context, prefix kgmem.Namespace, includeExpired bool) ([]kgmem.Namespace, error) {
	if prefix != "" {
		if _, err := kgmem.ParseNamespace(string(prefix)); err != nil {
			return nil, err
		}
	}
	nss, err := e.graph.ItemNamespaces(ctx, prefix, e.liveAt(includeExpired))
	if err != nil {
		return nil, fmt.Errorf("list item namespaces: %w", err)
	}
	return nss, nil
}

// liveAt is the instant item reads hide what expired by: now, or the zero
// time (hide nothing) when they include expired items.
func (e *Engine) liveAt(includeExpired bool) time.Time {
	if includeExpired {
		return time.Time{}
	}
	return e.now()
}

// ItemSearchRequest searches the items of a namespace and of every
// namespace below it.
type ItemSearchRequest struct {
	// Prefix is the namespace whose items, and whose descendants' items,
	// are searched ("memories" spans "memories/alice" and "memories/bob").
	Prefix kgmem.Namespace
	// Query ranks the items by the search pipeline (BM25 and vector,
	// decay-weighted); empty lists them, most recently updated first.
	Query string
	// Filter keeps only the items whose values match.
	Filter kgmem.ItemFilter
	// Limit (default 10, at most SearchOptions.MaxLimit) and Offset page
	// through the results.
	Limit, Offset int
	// Reinforce records the ranked items returned as recalled.
	Reinforce bool
	// Read refreshes the TTL of the items returned, or includes expired ones.
	Read ItemRead
}

// SearchItems answers an item search the way LangGraph's stores do: with a
// query, the items it ranks come first, best first, and the other items
// that match the filter follow unranked (Score nil), most recently updated
// first; without a query every matching item is listed that way. Ranking
// runs the search pipeline in each namespace below the prefix and merges
// the results by final score.
func (e *Engine) SearchItems(ctx context.Context, req ItemSearchRequest) ([]ItemResult, []string, error) {
	if err := e.validateItemSearch(&req); err != nil {
		return nil, nil, err
	}
	live := e.liveAt(req.Read.IncludeExpired)
	nss, err := e.graph.ItemNamespaces(ctx, req.Prefix, live)
	if err != nil {
		return nil, nil, fmt.Errorf("list item namespaces: %w", err)
	}
	if len(nss) > MaxItemSearchNamespaces {
		return nil, nil, kgmem.Unprocessablef("namespace_prefix", "spans %d namespaces with items, at most %d can be searched at once; use a longer prefix", len(nss), MaxItemSearchNamespaces)
	}
	matched, err := e.matchingItems(ctx, nss, req.Filter, live)
	if err != nil {
		return nil, nil, err
	}
	var ranked []ItemResult
	var warnings []string
	if req.Query != "" && len(matched) > 0 {
		ranked, warnings, err = e.rankItems(ctx, nss, req, matched)
		if err != nil {
			return nil, nil, err
		}
	}
	seen := make(map[string]bool, len(ranked))
	for _, r := range ranked {
		seen[r.ID] = true
	}
	out := ranked
	for _, it := range matched {
		if !seen[it.ID] {
			out = append(out, ItemResult{Item: it})
		}
	}
	out = out[min(req.Offset, len(out)):]
	out = out[:min(req.Limit, len(out))]
	if req.Read.RefreshTTL {
		if err := e.refreshResults(ctx, out); err != nil {
			return nil, nil, err
		}
	}
	if req.Reinforce {
		byNS := map[kgmem.Namespace][]decay.Ref{}
		for _, r := range out {
			if r.Score != nil {
				byNS[r.Namespace] = append(byNS[r.Namespace], decay.Ref{Kind: kgmem.KindItem, ID: r.ID})
			}
		}
		for ns, refs := range byNS {
			e.reinforce(ctx, ns, refs)
		}
	}
	return nonNil(out), nonNil(warnings), nil
}

// CheckItemSearch checks an item search as SearchItems does, filling in
// its defaults, without running it (a batch checks every operation first).
func (e *Engine) CheckItemSearch(req *ItemSearchRequest) error { return e.validateItemSearch(req) }

// validateItemSearch checks an item search and fills in its defaults.
func (e *Engine) validateItemSearch(req *ItemSearchRequest) error {
	if _, err := kgmem.ParseNamespaceField("namespace_prefix", string(req.Prefix)); err != nil {
		return err
	}
	switch {
	case len(req.Query) > e.search.MaxQueryBytes:
		return kgmem.TooLong("query", req.Query, e.search.MaxQueryBytes)
	case !utf8.ValidString(req.Query):
		return kgmem.Invalidf("query", "is not valid UTF-8")
	case req.Limit < 0 || req.Limit > e.search.MaxLimit:
		return kgmem.Invalidf("limit", "is %d, must be within 1..%d", req.Limit, e.search.MaxLimit)
	case req.Offset < 0 || req.Offset > MaxItemSearchScan:
		return kgmem.Invalidf("offset", "is %d, must be within 0..%d", req.Offset, MaxItemSearchScan)
	}
	if strings.TrimSpace(req.Query) == "" {
		req.Query = ""
	}
	if req.Limit == 0 {
		req.Limit = DefaultItemSearchLimit
	}
	return nil
}

// refreshResults refreshes the TTL of the live items of a search's page.
func (e *Engine) refreshResults(ctx context.Context, out []ItemResult) error {
	now := e.now()
	byNS := map[kgmem.Namespace][]int{}
	for i, r := range out {
		if r.ExpiresAt != nil && !r.Expired(now) {
			byNS[r.Namespace] = append(byNS[r.Namespace], i)
		}
	}
	for ns, idx := range byNS {
		items := make([]kgmem.Item, len(idx))
		for j, i := range idx {
			items[j] = out[i].Item
		}
		if err := e.refreshItems(ctx, ns, items, now); err != nil {
			return err
		}
		for j, i := range idx {
			out[i].Item = items[j]
		}
	}
	return nil
}

// matchingItems reads every item of nss whose value matches filter, most
// recently updated first (then by namespace and key); with a liveAt, only
// those not expired then.
func (e *Engine) matchingItems(ctx context.Context, nss []kgmem.Namespace, filter kgmem.ItemFilter, liveAt time.Time) ([]kgmem.Item, error) {
	var out []kgmem.Item
	scanned := 0
	for _, ns := range nss {
		for after := ""; ; {
			page, err := e.graph.ListItems(ctx, ns, kgmem.Page{After: after, Limit: itemPage})
			if err != nil {
				return nil, fmt.Errorf("list items of %q: %w", ns, err)
			}
			scanned += len(page)
			if scanned > MaxItemSearchScan {
				return nil, kgmem.Unprocessablef("namespace_prefix", "spans more than %d items, the most one item search reads; use a longer prefix", MaxItemSearchScan)
			}
			for _, it := range page {
				if (liveAt.IsZero() || !it.Expired(liveAt)) && filter.Match(it.Value) {
					out = append(out, it)
				}
			}
			if len(page) < itemPage {
				break
			}
			after = page[len(page)-1].ID
		}
	}
	slices.SortStableFunc(out, func(a, b kgmem.Item) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Key, b.Key))
	})
	return out, nil
}

// rankItems runs the query in each namespace that holds a matching item
// and merges the ranked items that match, best first.
func (e *Engine) rankItems(ctx context.Context, nss []kgmem.Namespace, req ItemSearchRequest, matched []kgmem.Item) ([]ItemResult, []string, error) {
	keep := make(map[string]bool, len(matched))
	holds := map[kgmem.Namespace]bool{}
	for _, it := range matched {
		keep[it.ID] = true
		holds[it.Namespace] = true
	}
	// Ask each namespace for enough that the page can be filled after the
	// filter drops some.
	depth := min(e.search.MaxLimit, req.Offset+req.Limit)
	if !req.Filter.Empty() {
		depth = e.search.MaxLimit
	}
	perNS := make([][]ItemResult, len(nss))
	warnings := make([][]string, len(nss))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(itemSearchParallel)
	for i, ns := range nss {
		if !holds[ns] {
			continue
		}
		g.Go(func() error {
			res, err := e.Search(gctx, SearchRequest{Namespace: ns, Query: req.Query, Limit: depth, Include: []kgmem.Kind{kgmem.KindItem}})
			if err != nil {
				return fmt.Errorf("search items of %q: %w", ns, err)
			}
			perNS[i], warnings[i] = res.Items, res.Warnings
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	var ranked []ItemResult
	for _, rs := range perNS {
		for _, r := range rs {
			if keep[r.ID] {
				ranked = append(ranked, r)
			}
		}
	}
	slices.SortStableFunc(ranked, func(a, b ItemResult) int {
		return cmp.Or(cmp.Compare(b.Score.Final, a.Score.Final), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Key, b.Key))
	})
	return ranked, slices.Concat(warnings...), nil
}
