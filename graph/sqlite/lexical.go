package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/topology"
	"github.com/kgmem/kgmem/internal/nscache"
	"github.com/kgmem/kgmem/lexical"
)

// lexicalBudget bounds the entries (postings, documents and terms; 8 to 16
// bytes each) the BM25 indexes hold over all namespaces and kinds: past it
// the least recently searched are dropped. A namespace whose records of a
// kind could not fit (more than lexicalBudget/lexicalEntriesPerDoc of them)
// is searched through FTS5 instead, and so is one whose index of more than
// lexicalRefreshAbove entries (about 10,000 records) a write made stale,
// until it is rebuilt in the background (nscache).
const (
	lexicalBudget        = 32_000_000
	lexicalEntriesPerDoc = 8
	lexicalRefreshAbove  = 100_000
)

// lexicalIndex returns the current in-memory BM25 index of the records of
// src in ns, building it when the cached one is missing or was built at
// another graph version, or ok false when ns has too many such records.
func (s *Store) lexicalIndex(ctx context.Context, ns kgmem.Namespace, src ftsSource, version int64) (*lexical.Index, bool, error) {
	return s.lex.Get(ctx, lexicalKey(src.kind, ns), version, func(ctx context.Context) (nscache.Loaded[*lexical.Index], error) {
		return s.readLexical(ctx, ns, src)
	})
}

// lexicalKey is the cache key of the BM25 index of kind k in ns.
func lexicalKey(k kgmem.Kind, ns kgmem.Namespace) string { return string(k) + "\x00" + string(ns) }

// lexicalDocs is, per kind, the query reading a namespace's searchable texts
// in insertion order: the same texts Apply indexes in FTS5 (a fact's
// sentence; an episode's speaker and content; an entity's name and aliases;
// an item's text).
var lexicalDocs = map[kgmem.Kind]struct {
	query string
	scan  func(*sql.Rows) (lexical.Doc, error)
}{
	kgmem.KindFact: {`SELECT id, text, expired_at IS NOT NULL FROM facts WHERE namespace = ? ORDER BY rid`,
		func(rows *sql.Rows) (lexical.Doc, error) {
			var d lexical.Doc
			return d, rows.Scan(&d.ID, &d.Text, &d.Expired)
		}},
	kgmem.KindEpisode: {`SELECT id, name, content FROM episodes WHERE namespace = ? ORDER BY rid`,
		func(rows *sql.Rows) (lexical.Doc, error) {
			var d lexical.Doc
			var name, content string
			err := rows.Scan(&d.ID, &name, &content)
			d.Text, d.Label = episodeText(name, content), name
			return d, err
		}},
	kgmem.KindItem: {`SELECT id, text FROM items WHERE namespace = ? AND text != '' ORDER BY rid`,
		func(rows *sql.Rows) (lexical.Doc, error) {
			var d lexical.Doc
			return d, rows.Scan(&d.ID, &d.Text)
		}},
	kgmem.KindEntity: {`SELECT id, name, aliases FROM entities WHERE namespace = ? ORDER BY rid`,
		func(rows *sql.Rows) (lexical.Doc, error) {
			var d lexical.Doc
			var name, aliases string
			if err := rows.Scan(&d.ID, &name, &aliases); err != nil {
				return d, err
			}
			list, err := fromJSONList(aliases)
			if err != nil {
				return d, fmt.Errorf("entity %s aliases: %w", d.ID, err)
			}
			d.Text = entityText(name, list)
			return d, nil
		}},
}

// episodeText is the text an episode is searched by: its speaker's name
// and its content.
func episodeText(name, content string) string {
	if name == "" {
		return content
	}
	return name + ": " + content
}

// entityText is the text the BM25 index searches an entity by: its name
// and aliases, a line each.
func entityText(name string, aliases []string) string {
	return strings.Join(append([]string{name}, aliases...), "\n")
}

// readLexical builds the BM25 index of src's records in ns and reads its
// version, in one read transaction.
func (s *Store) readLexical(ctx context.Context, ns kgmem.Namespace, src ftsSource) (nscache.Loaded[*lexical.Index], error) {
	return readView(ctx, s, ns, src.records, lexicalBudget/lexicalEntriesPerDoc, func(q querier) (*lexical.Index, int, error) {
		read := lexicalDocs[src.kind]
		docs, err := collect(ctx, q, read.scan, read.query, ns)
		if err != nil {
			return nil, 0, fmt.Errorf("read %s texts: %w", src.records, err)
		}
		ix := lexical.Build(docs)
		return ix, ix.Size(), nil
	})
}

// dropViews forgets the views of ns held in memory (its BM25 indexes,
// topology, entity names, thread order and entity facts), after a purge:
// none can serve again, since versions never repeat, and their memory goes
// now rather than when the caches' budgets push them out.
func (s *Store) dropViews(ns kgmem.Namespace) {
	for _, src := range ftsSources() {
		s.lex.Drop(lexicalKey(src.kind, ns))
	}
	key := string(ns)
	s.topo.Drop(key)
	s.names.Drop(key)
	s.threads.Drop(key)
	s.entityFacts.Drop(key)
}

// advanceDecayed moves the views of ns cached at graph version from to
// version to, after SetDecay wrote updates: the entity facts take the
// facts' new decay state; the other views hold no decay state and are only
// relabelled.
func (s *Store) advanceDecayed(ns kgmem.Namespace, from, to int64, updates []kgmem.DecayUpdate) {
	if from == 0 {
		return // nothing cached
	}
	key := string(ns)
	for _, src := range ftsSources() {
		s.lex.Advance(lexicalKey(src.kind, ns), from, to, nscache.Unchanged[*lexical.Index])
	}
	s.topo.Advance(key, from, to, nscache.Unchanged[*topology.Topology])
	s.names.Advance(key, from, to, nscache.Unchanged[*entityNames])
	s.threads.Advance(key, from, to, nscache.Unchanged[*threadOrder])
	s.advanceEntityFacts(ns, from, to, func(v *entityFacts) (*entityFacts, error) { return v.withDecay(updates), nil })
}

// advanceViews moves the views of cs's namespace cached at version a.from
// (before a wrote cs) to version a.to (after): each BM25 index takes the
// texts cs added or changed, as Apply wrote them, instead of being read
// again by the next search; the entity facts take cs's facts and entities; the
// topology, unchanged unless cs writes facts, is only relabelled, and the
// thread order takes the timestamped episodes inserted (a.threaded). A
// view not cached at a.from is left to the next read. A namespace that held
// nothing (a.from 0) gets its BM25 indexes and thread order from cs alone
// (seedViews).
func (s *Store) advanceViews(cs kgmem.ChangeSet, a *applier) {
	from, to := a.from, a.to
	if from == 0 {
		s.seedViews(cs, a)
		return
	}
	ns := string(cs.Namespace)
	updates := lexicalUpdates(cs)
	for _, src := range ftsSources() {
		u := updates[src.kind]
		s.lex.Advance(lexicalKey(src.kind, cs.Namespace), from, to, func(ix *lexical.Index, _ int) (*lexical.Index, int) {
			next := ix.With(u)
			return next, next.Size()
		})
	}
	s.advanceEntityFacts(cs.Namespace, from, to, func(v *entityFacts) (*entityFacts, error) { return v.with(cs) })
	if len(cs.Facts) == 0 {
		s.topo.Advance(ns, from, to, nscache.Unchanged[*topology.Topology])
	}
	if len(cs.Entities) == 0 {
		s.names.Advance(ns, from, to, nscache.Unchanged[*entityNames])
	}
	s.threads.Advance(ns, from, to, func(o *threadOrder, _ int) (*threadOrder, int) {
		next := o.with(a.threaded)
		return next, next.size
	})
}

// seedViews caches the BM25 indexes and the thread order of a namespace
// whose first records cs wrote (at version a.to), made from cs as the next
// writes advance them: the first search after a bulk write of a fresh
// namespace then costs what later ones do, instead of reading them all
// (a 500-message namespace's first search waited a tenth of a second on a
// busy machine). A write-only Store (WriteOnly) seeds nothing.
func (s *Store) seedViews(cs kgmem.ChangeSet, a *applier) {
	if !s.seeds || a.to == 0 {
		return
	}
	updates := lexicalUpdates(cs)
	for _, src := range ftsSources() {
		ix := lexical.Build(nil).With(updates[src.kind])
		s.lex.Seed(lexicalKey(src.kind, cs.Namespace), nscache.Loaded[*lexical.Index]{Value: ix, Version: a.to, Size: ix.Size()})
	}
	if len(a.threaded) <= threadOrderBudget {
		o := (&threadOrder{threads: map[string][]threadEntry{}, places: newThreadPlaces(nil)}).with(a.threaded)
		s.threads.Seed(string(cs.Namespace), nscache.Loaded[*threadOrder]{Value: o, Version: a.to, Size: o.size})
	}
}

// lexicalUpdates are, per kind, the changes cs makes to the namespace's
// BM25 indexes, as Apply indexes them in FTS5.
func lexicalUpdates(cs kgmem.ChangeSet) map[kgmem.Kind]lexical.Update {
	updates := map[kgmem.Kind]lexical.Update{}
	for _, e := range cs.Episodes {
		u := updates[kgmem.KindEpisode]
		u.Insert = append(u.Insert, lexical.Doc{ID: e.ID, Text: episodeText(e.Name, e.Content), Label: e.Name})
		updates[kgmem.KindEpisode] = u
	}
	for _, e := range cs.Entities {
		u := updates[kgmem.KindEntity]
		u.Upsert = append(u.Upsert, lexical.Doc{ID: e.ID, Text: entityText(e.Name, e.Aliases)})
		updates[kgmem.KindEntity] = u
	}
	for _, f := range cs.Facts {
		u := updates[kgmem.KindFact]
		u.Upsert = append(u.Upsert, lexical.Doc{ID: f.ID, Text: f.Text, Expired: !f.ExpiredAt.IsZero()})
		updates[kgmem.KindFact] = u
	}
	for _, it := range cs.Items {
		u := updates[kgmem.KindItem]
		if it.Text == "" {
			u.Remove = append(u.Remove, it.ID)
		} else {
			u.Upsert = append(u.Upsert, lexical.Doc{ID: it.ID, Text: it.Text})
		}
		updates[kgmem.KindItem] = u
	}
	return updates
}
