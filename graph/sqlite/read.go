package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
)

// defaultPageLimit is the page size when Page.Limit is 0.
const defaultPageLimit = 100

// idChunk bounds the ids bound into one IN (...) list (a power of two: see byIDs).
const idChunk = 512

// querier is what reads need: a pool or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// pageLimit validates a page and returns its effective limit.
func pageLimit(field string, p kgmem.Page) (int, error) {
	switch {
	case p.Limit < 0:
		return 0, kgmem.Invalidf(field, "must not be negative, got %d", p.Limit)
	case p.Limit == 0:
		return defaultPageLimit, nil
	}
	return p.Limit, nil
}

// placeholders returns "?, ?, …" for n values.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// byIDs fetches records of ns by id in chunks with fetch (which gets the
// "id IN (…)" condition and its arguments) and returns them in the order of
// ids, skipping missing ones. Each list is padded (repeating its last id)
// to a power of two, so the queries take few shapes and their prepared
// statements are reused (see readStmts).
func byIDs[T any](ctx context.Context, ids []string, idOf func(T) string,
	fetch func(ctx context.Context, cond string, args []any) ([]T, error)) ([]T, error) {
	var recs []T
	for start := 0; start < len(ids); start += idChunk {
		args := padded(ids[start:min(start+idChunk, len(ids))])
		chunk, err := fetch(ctx, "id IN ("+placeholders(len(args))+")", args)
		if err != nil {
			return nil, err
		}
		if recs == nil {
			recs = chunk
		} else {
			recs = append(recs, chunk...)
		}
	}
	// Records are large: they are found by index, and copied once, into
	// the order of ids.
	at := make(map[string]int32, len(recs))
	for i, r := range recs {
		at[idOf(r)] = int32(i)
	}
	out := make([]T, 0, len(recs))
	for _, id := range ids {
		if i, ok := at[id]; ok {
			out = append(out, recs[i])
		}
	}
	return out, nil
}

// padded returns keys (ids, rowids) as query arguments, the last repeated
// up to a power of two of at least minPadded, so that key lists take few
// statement shapes in the read statement cache (a repeated key matches
// nothing more).
func padded[K string | int64](keys []K) []any {
	args := make([]any, len(keys), max(minPadded, len(keys)*2-1))
	for i, k := range keys {
		args[i] = k
	}
	for n := len(args); n > 0 && (n < minPadded || n&(n-1) != 0); n++ {
		args = append(args, args[len(args)-1])
	}
	return args
}

// minPadded is the shortest padded key list: one to four keys (an entity
// and its neighbours, the few entities a query names) share one shape.
const minPadded = 4

// collect runs a query and scans every row with scan.
func collect[T any](ctx context.Context, q querier, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrapErr(err)
	}
	defer func() { _ = rows.Close() }()
	var out []T
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr(err)
	}
	return out, nil
}

// --- entities ---

// entityCols are the columns scanEntity reads, from alias e.
const entityCols = `e.id, e.namespace, e.name, e.type, e.summary, e.aliases, e.attributes, e.created_at, e.updated_at, e.stability, e.reinforced_at, e.reinforcements, e.pinned, e.forgotten_at`

// scanEntity scans one row of entityCols.
func scanEntity(rows *sql.Rows) (kgmem.Entity, error) {
	var (
		e                kgmem.Entity
		aliases          string
		attrs            sql.NullString
		created, updated sql.NullInt64
		d                decayCols
	)
	dest := append([]any{&e.ID, &e.Namespace, &e.Name, &e.Type, &e.Summary, &aliases, &attrs, &created, &updated}, d.dest()...)
	if err := rows.Scan(dest...); err != nil {
		return e, fmt.Errorf("scan entity: %w", err)
	}
	var err error
	if e.Aliases, err = fromJSONList(aliases); err != nil {
		return e, fmt.Errorf("entity %s aliases: %w", e.ID, err)
	}
	if e.Attributes, err = fromJSONMap(attrs); err != nil {
		return e, fmt.Errorf("entity %s attributes: %w", e.ID, err)
	}
	e.CreatedAt, e.UpdatedAt, e.Decay = fromMillis(created), fromMillis(updated), d.state()
	return e, nil
}

// entities runs a query on the entities of ns (alias e) with an extra condition.
func (s *Store) entities(ctx context.Context, q querier, ns kgmem.Namespace, cond string, args ...any) ([]kgmem.Entity, error) {
	return collect(ctx, s.cached(q), scanEntity, `SELECT `+entityCols+` FROM entities e WHERE e.namespace = ? AND `+cond,
		append([]any{ns}, args...)...)
}

// Entity returns one entity of ns, or an error wrapping kgmem.ErrNotFound.
func (s *Store) Entity(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.Entity, error) {
	if err := checkNamespace(ns); err != nil {
		return kgmem.Entity{}, err
	}
	es, err := s.entities(ctx, s.r, ns, `e.id = ?`, id)
	if err != nil {
		return kgmem.Entity{}, fmt.Errorf("sqlite: entity %s: %w", id, err)
	}
	if len(es) == 0 {
		return kgmem.Entity{}, fmt.Errorf("sqlite: entity %q in %s: %w", id, ns, kgmem.ErrNotFound)
	}
	return es[0], nil
}

// Entities returns the entities of ns with the given ids, in the order of ids.
func (s *Store) Entities(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	es, err := byIDs(ctx, ids, func(e kgmem.Entity) string { return e.ID },
		func(ctx context.Context, cond string, args []any) ([]kgmem.Entity, error) {
			return s.entities(ctx, s.r, ns, "e."+cond, args...)
		})
	if err != nil {
		return nil, fmt.Errorf("sqlite: entities: %w", err)
	}
	return es, nil
}

// FindEntities lists the entities of ns matching f, in id order.
func (s *Store) FindEntities(ctx context.Context, ns kgmem.Namespace, f kgmem.EntityFilter) ([]kgmem.Entity, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	limit, err := pageLimit("limit", f.Page)
	if err != nil {
		return nil, fmt.Errorf("sqlite: find entities: %w", err)
	}
	conds, args := []string{`e.id > ?`}, []any{f.After}
	if f.Type != "" {
		conds, args = append(conds, `e.type = ?`), append(args, f.Type)
	}
	if f.Query != "" {
		conds, args = append(conds, `instr(e.names_lower, ?) > 0`), append(args, lowerKey(f.Query))
	}
	if len(f.Names) > 0 {
		keys := make([]string, 0, len(f.Names))
		for _, n := range f.Names {
			if k := kgmem.NormalizeName(n); k != "" {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return nil, nil // no name can match
		}
		if f.Type == "" && f.Query == "" {
			// Most runs of a query's words name no entity: the names in
			// memory say which do, and only those are read.
			names, ok, err := s.entityNamesOf(ctx, ns)
			if err != nil {
				return nil, fmt.Errorf("sqlite: find entities: %w", err)
			}
			if ok {
				ids := slices.DeleteFunc(names.named(keys), func(id string) bool { return id <= f.After })
				es, err := s.Entities(ctx, ns, ids[:min(len(ids), limit)])
				if err != nil {
					return nil, fmt.Errorf("sqlite: find entities: %w", err)
				}
				return es, nil
			}
		}
		// Driven by the name index: the id bound must not lead the planner
		// into a walk of the namespace in id order.
		conds[0] = `+e.id > ?`
		// A search asks for every n-gram of its query: padded, the lists
		// take few statement shapes.
		list := padded(keys)
		conds = append(conds, `e.id IN (SELECT entity_id FROM entity_names WHERE namespace = ? AND norm IN (`+placeholders(len(list))+`))`)
		args = append(append(args, ns), list...)
	}
	es, err := s.entities(ctx, s.r, ns, strings.Join(conds, " AND ")+` ORDER BY e.id `+limitParam, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: find entities: %w", err)
	}
	return es, nil
}

// --- facts ---

// factCols are the columns of facts f that scanFact reads, after the ends'
// names and types of factSelect.
const factCols = `f.text, f.confidence, f.importance, f.episodes, f.attributes, f.valid_at, f.invalid_at, f.created_at, f.expired_at,
	f.stability, f.reinforced_at, f.reinforcements, f.pinned, f.forgotten_at`

// factSelect selects the columns scanFact reads: facts f joined to the
// names of their subject s and object o.
const factSelect = `SELECT f.id, f.namespace, f.subject_id, f.predicate, f.object_id, s.name, o.name, s.type, o.type, ` + factCols + `
	FROM facts f
	JOIN entities s ON s.namespace = f.namespace AND s.id = f.subject_id
	JOIN entities o ON o.namespace = f.namespace AND o.id = f.object_id`

// factAloneSelect selects the columns scanFactAlone reads: factSelect's
// without the ends' names and types, which the caller fills.
const factAloneSelect = `SELECT f.id, f.namespace, f.subject_id, f.predicate, f.object_id, ` + factCols + ` FROM facts f`

// scanFact scans one row of factSelect.
func scanFact(rows *sql.Rows) (kgmem.Fact, error) { return scanFactRow(rows, true) }

// scanFactAlone scans one row of factAloneSelect.
func scanFactAlone(rows *sql.Rows) (kgmem.Fact, error) { return scanFactRow(rows, false) }

// scanFactRow scans one row of factSelect, or of factAloneSelect without
// withEnds.
func scanFactRow(rows *sql.Rows, withEnds bool) (kgmem.Fact, error) {
	var (
		f                                    kgmem.Fact
		episodes                             string
		attrs                                sql.NullString
		validAt, invalidAt, created, expired sql.NullInt64
		d                                    decayCols
	)
	dest := []any{&f.ID, &f.Namespace, &f.SubjectID, &f.Predicate, &f.ObjectID}
	if withEnds {
		dest = append(dest, &f.SubjectName, &f.ObjectName, &f.SubjectType, &f.ObjectType)
	}
	dest = append(append(dest, &f.Text, &f.Confidence, &f.Importance, &episodes, &attrs, &validAt, &invalidAt, &created, &expired), d.dest()...)
	if err := rows.Scan(dest...); err != nil {
		return f, fmt.Errorf("scan fact: %w", err)
	}
	var err error
	if f.Episodes, err = fromJSONList(episodes); err != nil {
		return f, fmt.Errorf("fact %s episodes: %w", f.ID, err)
	}
	if f.Attributes, err = fromJSONMap(attrs); err != nil {
		return f, fmt.Errorf("fact %s attributes: %w", f.ID, err)
	}
	f.ValidAt, f.InvalidAt, f.CreatedAt, f.ExpiredAt = fromMillis(validAt), fromMillis(invalidAt), fromMillis(created), fromMillis(expired)
	f.Decay = d.state()
	return f, nil
}

// facts runs a query on the facts of ns (alias f) with an extra condition.
// When byRID is set, cond restricts f.rid to a short list and the namespace
// test is written (unary +) so that no index serves it: without statistics
// the planner would otherwise scan the namespace instead of the list.
func (s *Store) facts(ctx context.Context, q querier, ns kgmem.Namespace, byRID bool, cond string, args ...any) ([]kgmem.Fact, error) {
	nsCond := ` WHERE f.namespace = ? AND `
	if byRID {
		nsCond = ` WHERE +f.namespace = ? AND `
	}
	return collect(ctx, s.cached(q), scanFact, factSelect+nsCond+cond, append([]any{ns}, args...)...)
}

// Fact returns one fact of ns, current or historical, or an error wrapping
// kgmem.ErrNotFound.
func (s *Store) Fact(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.Fact, error) {
	if err := checkNamespace(ns); err != nil {
		return kgmem.Fact{}, err
	}
	fs, err := s.facts(ctx, s.r, ns, false, `f.id = ?`, id)
	if err != nil {
		return kgmem.Fact{}, fmt.Errorf("sqlite: fact %s: %w", id, err)
	}
	if len(fs) == 0 {
		return kgmem.Fact{}, fmt.Errorf("sqlite: fact %q in %s: %w", id, ns, kgmem.ErrNotFound)
	}
	return fs[0], nil
}

// Facts returns the facts of ns with the given ids, in the order of ids.
func (s *Store) Facts(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Fact, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	if fs, ok, err := s.factsShown(ctx, ns, ids); err != nil || ok {
		return fs, err
	}
	fs, err := byIDs(ctx, ids, func(f kgmem.Fact) string { return f.ID },
		func(ctx context.Context, cond string, args []any) ([]kgmem.Fact, error) {
			return s.facts(ctx, s.r, ns, false, "f."+cond, args...)
		})
	if err != nil {
		return nil, fmt.Errorf("sqlite: facts: %w", err)
	}
	return fs, nil
}

// factsShown is Facts with the ends' names and types taken from the
// namespace's entity names in memory (entityNames.show) instead of two
// joins per fact. It uses the names only when they are held at the
// namespace's current version (a search's entity linking has read them);
// it never reads them itself, so that the other readers of facts (the
// outbox, decay sweeps, event dating) do not load a namespace's names for
// a few facts. ok is false, and the caller joins, when the names are not
// held or lack an end of a fact loaded.
func (s *Store) factsShown(ctx context.Context, ns kgmem.Namespace, ids []string) (fs []kgmem.Fact, ok bool, err error) {
	v, err := s.versionsOf(ctx, ns)
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: facts: %w", err)
	}
	names, ok := s.names.Peek(string(ns), v.graph)
	if !ok || names == nil {
		return nil, false, nil
	}
	fs, err = byIDs(ctx, ids, func(f kgmem.Fact) string { return f.ID },
		func(ctx context.Context, cond string, args []any) ([]kgmem.Fact, error) {
			return collect(ctx, s.cached(s.r), scanFactAlone, factAloneSelect+` WHERE f.namespace = ? AND f.`+cond, append([]any{ns}, args...)...)
		})
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: facts: %w", err)
	}
	for i := range fs {
		if !names.show(&fs[i]) {
			return nil, false, nil
		}
	}
	return fs, true, nil
}

// ListFacts lists the facts of ns matching f, in id order.
func (s *Store) ListFacts(ctx context.Context, ns kgmem.Namespace, f kgmem.FactFilter) ([]kgmem.Fact, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	limit, err := pageLimit("limit", f.Page)
	if err == nil {
		err = f.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: list facts: %w", err)
	}
	fs, ok := []kgmem.Fact(nil), false
	if f.EntityID != "" {
		fs, ok, err = s.listFactsOfEntity(ctx, ns, f, limit)
	}
	if err == nil && !ok {
		fs, err = s.listFactsStored(ctx, ns, f, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: list facts: %w", err)
	}
	return fs, nil
}

// listFactsStored is ListFacts by the file's indexes alone.
func (s *Store) listFactsStored(ctx context.Context, ns kgmem.Namespace, f kgmem.FactFilter, limit int) ([]kgmem.Fact, error) {
	if f.OtherID != "" || f.EntityID != "" && f.Predicate != "" {
		return s.factsOfPair(ctx, ns, f, limit)
	}
	conds, args := []string{`f.id > ?`}, []any{f.After}
	if f.EntityID != "" {
		// Driven by the entity's facts, then sorted, rather than by a walk
		// of the namespace in id order that probes every fact.
		conds[0] = `+f.id > ?`
	}
	if !f.IncludeExpired {
		conds = append(conds, `f.expired_at IS NULL`)
	}
	if f.Predicate != "" {
		conds, args = append(conds, `f.predicate = ?`), append(args, f.Predicate)
	}
	if f.EntityID != "" {
		conds = append(conds, `f.rid IN (SELECT rid FROM facts WHERE namespace = ? AND subject_id = ?
			UNION ALL SELECT rid FROM facts WHERE namespace = ? AND object_id = ?)`)
		args = append(args, ns, f.EntityID, ns, f.EntityID)
	}
	return s.facts(ctx, s.r, ns, f.EntityID != "", strings.Join(conds, " AND ")+` ORDER BY f.id `+limitParam, append(args, limit)...)
}

// factsOfPair lists the facts of f narrowed to an entity's side of a slice
// with an index in id order: between two entities (facts_pair, with or
// without a predicate) or of one entity with one predicate
// (facts_subject_predicate, facts_object_predicate). Each side is a SELECT
// that reads its index from f.After on, and the two are merged in id order
// up to the page (a compound SELECT: no temporary table, no sort), so a
// page of a hub entity's slice costs the page, not the hub's degree. The
// second side leaves out a fact from the entity to itself, which the first
// side has. TestListFactsPlans checks the plans.
func (s *Store) factsOfPair(ctx context.Context, ns kgmem.Namespace, f kgmem.FactFilter, limit int) ([]kgmem.Fact, error) {
	query, args := pairQuery(ns, f, limit)
	return collect(ctx, s.cached(s.r), scanFact, query, args...)
}

// pairQuery is factsOfPair's statement and its arguments.
func pairQuery(ns kgmem.Namespace, f kgmem.FactFilter, limit int) (string, []any) {
	var args []any
	side := func(cond string, sideArgs ...any) string {
		q := factSelect + ` WHERE f.namespace = ? AND ` + cond + ` AND f.id > ?`
		args = append(append(append(args, ns), sideArgs...), f.After)
		if f.Predicate != "" {
			q += ` AND f.predicate = ?`
			args = append(args, f.Predicate)
		}
		if !f.IncludeExpired {
			q += ` AND f.expired_at IS NULL`
		}
		return q
	}
	var a, b string
	if f.OtherID != "" {
		a = side(`f.subject_id = ? AND f.object_id = ?`, f.EntityID, f.OtherID)
		b = side(`f.subject_id = ? AND f.object_id = ? AND f.subject_id <> f.object_id`, f.OtherID, f.EntityID)
	} else {
		a = side(`f.subject_id = ?`, f.EntityID)
		b = side(`f.object_id = ? AND f.subject_id <> f.object_id`, f.EntityID)
	}
	return a + ` UNION ALL ` + b + ` ORDER BY 1 ` + limitParam, append(args, limit)
}

// --- episodes ---

// episodeCols are the columns scanEpisode reads, from alias p.
const episodeCols = `p.id, p.namespace, p.thread_id, p.message_id, p.role, p.name, p.content, p.timestamp, p.metadata, p.created_at, p.stability, p.reinforced_at, p.reinforcements, p.pinned, p.forgotten_at`

// scanEpisode scans one row of episodeCols.
func scanEpisode(rows *sql.Rows) (kgmem.Episode, error) {
	var (
		e           kgmem.Episode
		meta        sql.NullString
		ts, created sql.NullInt64
		d           decayCols
	)
	dest := append([]any{&e.ID, &e.Namespace, &e.ThreadID, &e.MessageID, &e.Role, &e.Name, &e.Content, &ts, &meta, &created}, d.dest()...)
	if err := rows.Scan(dest...); err != nil {
		return e, fmt.Errorf("scan episode: %w", err)
	}
	var err error
	if e.Metadata, err = fromJSONMap(meta); err != nil {
		return e, fmt.Errorf("episode %s metadata: %w", e.ID, err)
	}
	e.Timestamp, e.CreatedAt, e.Decay = fromMillis(ts), fromMillis(created), d.state()
	return e, nil
}

// episodesWhere runs a query on the episodes of ns (alias p) with an extra condition.
func (s *Store) episodesWhere(ctx context.Context, ns kgmem.Namespace, cond string, args ...any) ([]kgmem.Episode, error) {
	return collect(ctx, s.cached(s.r), scanEpisode, `SELECT `+episodeCols+` FROM episodes p WHERE p.namespace = ? AND `+cond,
		append([]any{ns}, args...)...)
}

// Episodes returns the episodes of ns with the given ids, in the order of
// ids: from the cache of recently loaded episodes when it is current
// (episodecache.go), the others from the file.
func (s *Store) Episodes(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Episode, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	v, err := s.versionsOf(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("sqlite: episodes: %w", err)
	}
	cached, missing := s.episodes.lookup(ns, v.episode, ids)
	if ix, ok := s.lex.Peek(lexicalKey(kgmem.KindEpisode, ns), v.graph); ok && len(missing) > 0 {
		// The episodes' BM25 index at the current graph version holds
		// every episode stored: one it lacks does not exist (the ingest
		// asks this of every new message).
		missing = slices.DeleteFunc(missing, func(id string) bool { return !ix.Holds(id) })
	}
	if len(missing) == 0 {
		return cached, nil // in the order of ids already
	}
	loaded, err := byIDs(ctx, missing, func(e kgmem.Episode) string { return e.ID },
		func(ctx context.Context, cond string, args []any) ([]kgmem.Episode, error) {
			return s.episodesWhere(ctx, ns, "p."+cond, args...)
		})
	if err != nil {
		return nil, fmt.Errorf("sqlite: episodes: %w", err)
	}
	s.episodes.fill(ns, v.episode, loaded)
	if len(cached) == 0 {
		return loaded, nil
	}
	// Both are in the order of ids (the cached ones as found, the loaded
	// ones as asked for): merged along ids.
	eps := make([]kgmem.Episode, 0, len(cached)+len(loaded))
	for _, id := range ids {
		switch {
		case len(cached) > 0 && cached[0].ID == id:
			eps, cached = append(eps, cached[0]), cached[1:]
		case len(loaded) > 0 && loaded[0].ID == id:
			eps, loaded = append(eps, loaded[0]), loaded[1:]
		}
	}
	return eps, nil
}

// EpisodeSpeakers returns the speakers of the episodes of ids from the
// namespace's BM25 index of episodes, which keeps each episode's speaker as
// its document's label, when that index is held at the namespace's current
// graph version (a search of episode texts builds it), and known false
// otherwise.
func (s *Store) EpisodeSpeakers(ctx context.Context, ns kgmem.Namespace, ids []string) ([]string, bool, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, false, err
	}
	v, err := s.versionsOf(ctx, ns)
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: episode speakers: %w", err)
	}
	ix, ok := s.lex.Peek(lexicalKey(kgmem.KindEpisode, ns), v.graph)
	if !ok {
		return nil, false, nil
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i], _ = ix.Label(id)
	}
	return names, true, nil
}

// factLatest is a fact's later validity bound, the key of the facts_latest
// index; a fact without either sorts first.
const factLatest = `max(coalesce(valid_at, -9223372036854775808), coalesce(invalid_at, -9223372036854775808))`

// latestTimeQuery reads a namespace's latest episode timestamp and the
// validity bounds of its fact with the latest bound, each from the end of
// its index (TestLatestTimeSeeksIndexes).
const latestTimeQuery = `SELECT (SELECT max(timestamp) FROM episodes WHERE namespace = ?1), f.valid_at, f.invalid_at
	FROM (SELECT 1) LEFT JOIN (SELECT valid_at, invalid_at FROM facts WHERE namespace = ?1
		ORDER BY ` + factLatest + ` DESC LIMIT 1) AS f`

// LatestTime returns the greatest episode timestamp or fact validity bound
// of ns: the last entry of episodes_timestamp and of facts_latest.
func (s *Store) LatestTime(ctx context.Context, ns kgmem.Namespace) (time.Time, error) {
	if err := checkNamespace(ns); err != nil {
		return time.Time{}, err
	}
	// max() skips NULL timestamps; the fact with the greatest bound gives
	// both of its bounds, of which the later is the answer.
	latest, err := collect(ctx, s.cached(s.r), func(rows *sql.Rows) (time.Time, error) {
		var episode, validAt, invalidAt sql.NullInt64
		if err := rows.Scan(&episode, &validAt, &invalidAt); err != nil {
			return time.Time{}, err
		}
		return laterOf(fromMillis(episode), fromMillis(validAt), fromMillis(invalidAt)), nil
	}, latestTimeQuery, ns)
	if err != nil {
		return time.Time{}, fmt.Errorf("sqlite: latest time of %s: %w", ns, err)
	}
	return latest[0], nil
}

// laterOf returns the latest of ts (the zero time when all are zero).
func laterOf(ts ...time.Time) time.Time {
	var latest time.Time
	for _, t := range ts {
		if t.After(latest) {
			latest = t
		}
	}
	return latest
}

// ListEpisodes pages through the episodes of ns in id order.
func (s *Store) ListEpisodes(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.Episode, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	limit, err := pageLimit("limit", page)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list episodes: %w", err)
	}
	eps, err := s.episodesWhere(ctx, ns, `p.id > ? ORDER BY p.id `+limitParam, page.After, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list episodes: %w", err)
	}
	return eps, nil
}

// errNoRows reports whether err is sql.ErrNoRows.
func errNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
