package client

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
)

// The methods below follow api/openapi.json route by route (TestEveryRoute
// checks that none is missing).

// Healthz checks that the server answers (GET /healthz).
func (c *Client) Healthz(ctx context.Context) (wire.Health, error) {
	var out wire.Health
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/healthz", out: &out})
	return out, err
}

// Readyz checks that the server and every backend answer (GET /readyz); a
// backend down is an *Error with status 503.
func (c *Client) Readyz(ctx context.Context) (wire.Health, error) {
	var out wire.Health
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/readyz", out: &out})
	return out, err
}

// OpenAPI returns the server's OpenAPI document (GET /openapi.json).
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	var out []byte
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/openapi.json", out: &out})
	return out, err
}

// Metrics returns the server's Prometheus metrics in the text format (GET /metrics).
func (c *Client) Metrics(ctx context.Context) ([]byte, error) {
	var out []byte
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/metrics", out: &out})
	return out, err
}

// AddMemories stores messages and, with Extract, turns them into facts
// (POST /v1/memories, sync mode). created is true when anything new was
// stored (201), false for a pure re-post (200). For a background job use
// AddMemoriesAsync.
func (c *Client) AddMemories(ctx context.Context, req wire.MemoriesRequest) (res wire.IngestResult, created bool, err error) {
	switch req.Mode {
	case "", wire.ModeSync:
	default:
		return res, false, fmt.Errorf("%w: AddMemories sends mode %q; use AddMemoriesAsync for a background job", kgmem.ErrInvalid, req.Mode)
	}
	status, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/memories", body: req, out: &res})
	return res, status == http.StatusCreated, err
}

// AddMemoriesAsync queues messages as a background job (POST /v1/memories
// with mode "async", 202); follow it with GetJob.
func (c *Client) AddMemoriesAsync(ctx context.Context, req wire.MemoriesRequest) (wire.Job, error) {
	req.Mode = wire.ModeAsync
	var out wire.Job
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/memories", body: req, out: &out})
	return out, err
}

// GetJob returns a background job (GET /v1/jobs/{id}).
func (c *Client) GetJob(ctx context.Context, ns kgmem.Namespace, id string) (wire.Job, error) {
	var out wire.Job
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/jobs/" + url.PathEscape(id), query: nsQuery(ns), out: &out})
	return out, err
}

// ListJobs returns the latest background jobs of a namespace, newest first
// (GET /v1/jobs); limit 0 takes the server's default.
func (c *Client) ListJobs(ctx context.Context, ns kgmem.Namespace, limit int) ([]wire.Job, error) {
	q := nsQuery(ns)
	setInt(q, "limit", limit)
	var out wire.JobList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/jobs", query: q, out: &out})
	return out.Jobs, err
}

// AddFacts posts triples (POST /v1/facts).
func (c *Client) AddFacts(ctx context.Context, req wire.FactsRequest) (wire.AddFactsResult, error) {
	var out wire.AddFactsResult
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/facts", body: req, out: &out})
	return out, err
}

// FactQuery selects facts of GET /v1/facts.
type FactQuery struct {
	Namespace kgmem.Namespace
	// Entity keeps the facts of one entity (id, name or alias).
	Entity string
	// CurrentOnly keeps the facts whose status is current.
	CurrentOnly bool
	// AsOf keeps the facts that held at this world time (zero: any).
	AsOf time.Time
	// Limit is the page size (0: the server's default); After the cursor.
	Limit int
	After string
}

func (q FactQuery) values() url.Values {
	v := nsQuery(q.Namespace)
	setString(v, "entity", q.Entity)
	if q.CurrentOnly {
		v.Set("current_only", "true")
	}
	if !q.AsOf.IsZero() {
		v.Set("as_of", q.AsOf.UTC().Format(time.RFC3339Nano))
	}
	setInt(v, "limit", q.Limit)
	setString(v, "after", q.After)
	return v
}

// ListFacts returns one page of facts (GET /v1/facts); FactList.Next is the
// cursor of the next page.
func (c *Client) ListFacts(ctx context.Context, q FactQuery) (wire.FactList, error) {
	var out wire.FactList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/facts", query: q.values(), out: &out})
	return out, err
}

// Facts iterates over every fact q selects, page by page from q.After;
// iteration stops at the first error, which it yields.
func (c *Client) Facts(ctx context.Context, q FactQuery) iter.Seq2[wire.FactView, error] {
	return pages(func(after string) ([]wire.FactView, string, error) {
		q.After = after
		p, err := c.ListFacts(ctx, q)
		return p.Facts, p.Next, err
	}, q.After)
}

// GetFact returns one fact, current or historical (GET /v1/facts/{id}).
func (c *Client) GetFact(ctx context.Context, ns kgmem.Namespace, id string) (wire.FactView, error) {
	var out wire.FactView
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/facts/" + url.PathEscape(id), query: nsQuery(ns), out: &out})
	return out, err
}

// DeleteFact hard-deletes one fact and its vector (DELETE /v1/facts/{id}).
func (c *Client) DeleteFact(ctx context.Context, ns kgmem.Namespace, id string) error {
	_, err := c.do(ctx, call{method: http.MethodDelete, path: "/v1/facts/" + url.PathEscape(id), query: nsQuery(ns)})
	return err
}

// EntityQuery selects entities of GET /v1/entities.
type EntityQuery struct {
	Namespace kgmem.Namespace
	// Q matches names and aliases; Type keeps one entity type.
	Q    string
	Type string
	// IDs fetches these entities (not with Q or Type).
	IDs []string
	// Limit is the page size (0: the server's default); After the cursor.
	Limit int
	After string
}

func (q EntityQuery) values() url.Values {
	v := nsQuery(q.Namespace)
	setString(v, "q", q.Q)
	setString(v, "type", q.Type)
	for _, id := range q.IDs {
		v.Add("id", id)
	}
	setInt(v, "limit", q.Limit)
	setString(v, "after", q.After)
	return v
}

// ListEntities returns one page of entities (GET /v1/entities).
func (c *Client) ListEntities(ctx context.Context, q EntityQuery) (wire.EntityList, error) {
	var out wire.EntityList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/entities", query: q.values(), out: &out})
	return out, err
}

// Entities iterates over every entity q selects, page by page.
func (c *Client) Entities(ctx context.Context, q EntityQuery) iter.Seq2[kgmem.Entity, error] {
	return pages(func(after string) ([]kgmem.Entity, string, error) {
		q.After = after
		p, err := c.ListEntities(ctx, q)
		return p.Entities, p.Next, err
	}, q.After)
}

// GetEntity returns one entity (GET /v1/entities/{id}).
func (c *Client) GetEntity(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.Entity, error) {
	var out kgmem.Entity
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/entities/" + url.PathEscape(id), query: nsQuery(ns), out: &out})
	return out, err
}

// EpisodeQuery selects messages of GET /v1/episodes.
type EpisodeQuery struct {
	Namespace kgmem.Namespace
	// IDs fetches these messages, in this order.
	IDs []string
	// Limit is the page size (0: the server's default); After the cursor.
	Limit int
	After string
}

func (q EpisodeQuery) values() url.Values {
	v := nsQuery(q.Namespace)
	for _, id := range q.IDs {
		v.Add("id", id)
	}
	setInt(v, "limit", q.Limit)
	setString(v, "after", q.After)
	return v
}

// ListEpisodes returns one page of messages (GET /v1/episodes).
func (c *Client) ListEpisodes(ctx context.Context, q EpisodeQuery) (wire.EpisodeList, error) {
	var out wire.EpisodeList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/episodes", query: q.values(), out: &out})
	return out, err
}

// Episodes iterates over every message q selects, page by page.
func (c *Client) Episodes(ctx context.Context, q EpisodeQuery) iter.Seq2[kgmem.Episode, error] {
	return pages(func(after string) ([]kgmem.Episode, string, error) {
		q.After = after
		p, err := c.ListEpisodes(ctx, q)
		return p.Episodes, p.Next, err
	}, q.After)
}

// Search runs hybrid retrieval (POST /v1/search).
func (c *Client) Search(ctx context.Context, req wire.SearchRequest) (wire.SearchResult, error) {
	var out wire.SearchResult
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/search", body: req, out: &out})
	return out, err
}

// ListNamespaces lists the namespaces the key may read (GET /v1/namespaces).
func (c *Client) ListNamespaces(ctx context.Context) (wire.NamespaceList, error) {
	var out wire.NamespaceList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/namespaces", out: &out})
	return out, err
}

// PurgeNamespace deletes everything of a namespace (DELETE /v1/namespaces/{namespace}).
func (c *Client) PurgeNamespace(ctx context.Context, ns kgmem.Namespace) (wire.PurgeResult, error) {
	var out wire.PurgeResult
	_, err := c.do(ctx, call{method: http.MethodDelete, path: "/v1/namespaces/" + url.PathEscape(string(ns)), out: &out})
	return out, err
}

// GetSettings returns a namespace's settings (GET /v1/namespaces/{namespace}/settings).
func (c *Client) GetSettings(ctx context.Context, ns kgmem.Namespace) (wire.Settings, error) {
	var out wire.Settings
	_, err := c.do(ctx, call{method: http.MethodGet, path: settingsPath(ns), out: &out})
	return out, err
}

// PutSettings replaces a namespace's settings and returns them as stored
// (PUT /v1/namespaces/{namespace}/settings).
func (c *Client) PutSettings(ctx context.Context, ns kgmem.Namespace, s wire.Settings) (wire.Settings, error) {
	var out wire.Settings
	_, err := c.do(ctx, call{method: http.MethodPut, path: settingsPath(ns), body: s, out: &out})
	return out, err
}

// Sweep runs the forgetting sweep of a namespace now (POST /v1/namespaces/{namespace}/sweep).
func (c *Client) Sweep(ctx context.Context, ns kgmem.Namespace) (wire.SweepStats, error) {
	var out wire.SweepStats
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/namespaces/" + url.PathEscape(string(ns)) + "/sweep", out: &out})
	return out, err
}

// Feedback reinforces records that were useful (POST /v1/feedback, 202).
func (c *Client) Feedback(ctx context.Context, ns kgmem.Namespace, refs []wire.Ref) (wire.FeedbackResult, error) {
	var out wire.FeedbackResult
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/feedback", body: wire.RefsRequest{Namespace: ns, Refs: refs}, out: &out})
	return out, err
}

// Pin pins records (pinned true: never forgotten) or unpins them (POST /v1/pins).
func (c *Client) Pin(ctx context.Context, ns kgmem.Namespace, refs []wire.Ref, pinned bool) (wire.PinResult, error) {
	var out wire.PinResult
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/pins", body: wire.RefsRequest{Namespace: ns, Refs: refs, Pinned: &pinned}, out: &out})
	return out, err
}

// Restore brings soft-forgotten records back (POST /v1/restore).
func (c *Client) Restore(ctx context.Context, ns kgmem.Namespace, refs []wire.Ref) (wire.RestoreResult, error) {
	var out wire.RestoreResult
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/restore", body: wire.RefsRequest{Namespace: ns, Refs: refs}, out: &out})
	return out, err
}

// Strength reports records' retention now and their forgetting curves
// (POST /v1/strength; reads only).
func (c *Client) Strength(ctx context.Context, ns kgmem.Namespace, refs []wire.Ref) ([]wire.Strength, error) {
	var out wire.StrengthList
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/strength", body: wire.RefsRequest{Namespace: ns, Refs: refs}, out: &out})
	return out.Records, err
}

// PutItem upserts an item (PUT /v1/items); created is true when the key
// was new.
func (c *Client) PutItem(ctx context.Context, req wire.ItemRequest) (res wire.ItemPutResult, created bool, err error) {
	status, err := c.do(ctx, call{method: http.MethodPut, path: "/v1/items", body: req, out: &res})
	return res, status == http.StatusCreated, err
}

// ItemReadOption says how an item read treats items with a TTL.
type ItemReadOption func(url.Values)

// RefreshTTL sets whether a read extends the expiry of the items it
// returns to their TTL from now (refresh_ttl; the server's default is
// true, as LangGraph's).
func RefreshTTL(refresh bool) ItemReadOption {
	return func(q url.Values) { q.Set("refresh_ttl", strconv.FormatBool(refresh)) }
}

// IncludeExpired makes a read also return the items whose TTL ran out that
// the sweeper has not deleted yet (include_expired).
func IncludeExpired() ItemReadOption {
	return func(q url.Values) { q.Set("include_expired", "true") }
}

// GetItem returns one item by key (GET /v1/items); a missing or expired
// key is an *Error with status 404 (errors.Is(err, kgmem.ErrNotFound)).
func (c *Client) GetItem(ctx context.Context, ns kgmem.Namespace, key string, opts ...ItemReadOption) (kgmem.Item, error) {
	var out kgmem.Item
	q := nsQuery(ns)
	q.Set("key", key)
	for _, o := range opts {
		o(q)
	}
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/items", query: q, out: &out})
	return out, err
}

// DeleteItem deletes one item by key (DELETE /v1/items).
func (c *Client) DeleteItem(ctx context.Context, ns kgmem.Namespace, key string) error {
	q := nsQuery(ns)
	q.Set("key", key)
	_, err := c.do(ctx, call{method: http.MethodDelete, path: "/v1/items", query: q})
	return err
}

// SearchItems searches the items of a namespace and every namespace below
// it (POST /v1/items/search).
func (c *Client) SearchItems(ctx context.Context, req wire.ItemSearchRequest) (wire.ItemList, error) {
	var out wire.ItemList
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/items/search", body: req, out: &out})
	return out, err
}

// BatchItems runs up to wire.MaxItemBatchOps item operations in one
// request (POST /v1/items/batch): one result per operation, in order, each
// with its own status (a get of a missing key is that result's 404).
func (c *Client) BatchItems(ctx context.Context, ops []wire.ItemOp) ([]wire.ItemOpResult, error) {
	var out wire.ItemBatchResult
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/items/batch", body: wire.ItemBatchRequest{Ops: ops}, out: &out})
	return out.Results, err
}

// ListItemNamespaces lists the namespaces holding live items below prefix
// (every one the key may read when prefix is empty; GET
// /v1/items/namespaces); IncludeExpired lists those holding only expired
// items too.
func (c *Client) ListItemNamespaces(ctx context.Context, prefix kgmem.Namespace, opts ...ItemReadOption) ([]kgmem.Namespace, error) {
	var out wire.ItemNamespaceList
	q := url.Values{}
	setString(q, "prefix", string(prefix))
	for _, o := range opts {
		o(q)
	}
	q.Del("refresh_ttl") // a listing refreshes nothing
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/items/namespaces", query: q, out: &out})
	return out.Namespaces, err
}

// pages turns a page reader into an iterator: it yields each item, then
// reads the next page until a page comes back without a cursor.
func pages[T any](read func(after string) ([]T, string, error), after string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			items, next, err := read(after)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == "" || len(items) == 0 {
				return
			}
			after = next
		}
	}
}

func nsQuery(ns kgmem.Namespace) url.Values { return url.Values{"namespace": {string(ns)}} }

func setString(v url.Values, name, s string) {
	if s != "" {
		v.Set(name, s)
	}
}

func setInt(v url.Values, name string, n int) {
	if n != 0 {
		v.Set(name, strconv.Itoa(n))
	}
}

func settingsPath(ns kgmem.Namespace) string {
	return "/v1/namespaces/" + url.PathEscape(string(ns)) + "/settings"
}
