package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kgmem/kgmem"
)

// Apply writes cs atomically: all of it or, on any error, nothing.
func (s *Store) Apply(ctx context.Context, cs kgmem.ChangeSet) error {
	if err := cs.Validate(); err != nil {
		return fmt.Errorf("sqlite: apply: %w", err)
	}
	if cs.Empty() {
		return nil
	}
	// Committed with the change sets of concurrent calls (groupcommit.go),
	// which also advances the views.
	if err := s.groups.Do(ctx, &pendingApply{cs: cs, indexed: searchBodies(cs)}); err != nil {
		return fmt.Errorf("sqlite: apply to %s: %w", cs.Namespace, err)
	}
	return nil
}

// write runs fn, a write to ns, in one immediate transaction on the writer
// connection.
func (s *Store) write(ctx context.Context, ns kgmem.Namespace, fn func(tx *sql.Tx) error) error {
	return s.writeThen(ctx, ns, fn, nil)
}

// writeThen is write, running committed (when not nil) once the
// transaction has committed, before the versions held of ns are dropped:
// a view it advances to the new version is found there by the next read.
func (s *Store) writeThen(ctx context.Context, ns kgmem.Namespace, fn func(tx *sql.Tx) error, committed func()) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", wrapErr(err))
	}
	// Once the transaction has ended, committed or not, the versions held
	// of ns are read again: dropped after a rollback, and after a commit
	// in commit order with the writes that install versions (versions.go).
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		s.memo.written(ns)
		return wrapErr(err)
	}
	ran := false
	err = s.memo.commit(tx.Commit, func(err error) {
		if err == nil && committed != nil {
			committed()
			ran = true
		}
		s.memo.written(ns)
	})
	if err != nil {
		return fmt.Errorf("commit: %w", wrapErr(err))
	}
	if !ran && committed != nil { // no memo: it just committed
		committed()
	}
	s.checkpoints.Kick()
	return nil
}

// applier writes one ChangeSet inside one transaction.
type applier struct {
	ctx context.Context
	tx  *sql.Tx
	st  *writeStmts
	ns  kgmem.Namespace
	tok string // nsToken(ns)
	pre string // wordPrefix(ns)
	// indexed holds search entry bodies made before the write, by text
	// (searchBodies); setFTS makes those of other texts.
	indexed map[string]string
	// known holds the entity and episode ids known to exist: written by
	// this change set or found by mustExist, so each is looked up once.
	known map[string]bool
	// fts collects the search entries by FTS table, written by writeFTS.
	fts map[string]*ftsBatch
	// from and to are the namespace's graph versions before and after.
	from, to int64
	// threaded are the timestamped episodes inserted, for the thread order.
	threaded []threadInsert
	// insertedEpisodes are the episodes inserted, as reading them back gives them,
	// and episodeVersion the namespace's episode version they are current
	// at, for the episode cache (episodecache.go).
	insertedEpisodes []kgmem.Episode
	episodeVersion   int64
}

// ftsBatch is the search entries one change set writes to one FTS table:
// the last body per rowid, in first-write order, and the rowids whose
// records may have had an entry before (upserted, not inserted), which
// writeFTS removes first.
type ftsBatch struct {
	rids     []int64
	bodies   map[int64]string
	replaced []int64
}

// stmt binds a prepared statement to the transaction.
func (a *applier) stmt(st *sql.Stmt) *sql.Stmt { return a.tx.StmtContext(a.ctx, st) }

// apply writes cs: entities first, so that facts and mentions can point at
// entities of the same change set.
func (a *applier) apply(cs kgmem.ChangeSet) error {
	if _, err := a.stmt(a.st.registerNS).ExecContext(a.ctx, a.ns); err != nil {
		return fmt.Errorf("register namespace: %w", err)
	}
	var err error
	if a.from, a.to, err = a.st.advanceVersion(a.ctx, a.tx, a.ns); err != nil {
		return err
	}
	for i, e := range cs.Entities {
		if err := a.upsertEntity(e); err != nil {
			return fmt.Errorf("entities[%d] %s: %w", i, e.ID, err)
		}
	}
	if err := a.insertEpisodes(cs.Episodes); err != nil {
		return err
	}
	for i, f := range cs.Facts {
		p := fmt.Sprintf("facts[%d]", i)
		for _, ref := range [][2]string{{"subject_id", f.SubjectID}, {"object_id", f.ObjectID}} {
			if err := a.mustExist(a.st.entityExists, p+"."+ref[0], "entity", ref[1]); err != nil {
				return err
			}
		}
		if err := a.upsertFact(f); err != nil {
			return fmt.Errorf("%s %s: %w", p, f.ID, err)
		}
	}
	for i, it := range cs.Items {
		if err := a.upsertItem(it); err != nil {
			return fmt.Errorf("items[%d] %s: %w", i, it.ID, err)
		}
	}
	for i, m := range cs.Mentions {
		p := fmt.Sprintf("mentions[%d]", i)
		if err := a.mustExist(a.st.episodeExists, p+".episode_id", "episode", m.EpisodeID); err != nil {
			return err
		}
		if err := a.mustExist(a.st.entityExists, p+".entity_id", "entity", m.EntityID); err != nil {
			return err
		}
		if _, err := a.stmt(a.st.addMention).ExecContext(a.ctx, a.ns, m.EpisodeID, m.EntityID); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

// mustExist fails with a FieldError for field unless the existence query st
// finds id in the namespace.
func (a *applier) mustExist(st *sql.Stmt, field, what, id string) error {
	if a.known[id] {
		return nil
	}
	var one int
	err := a.stmt(st).QueryRowContext(a.ctx, a.ns, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return kgmem.Invalidf(field, "%s %q exists neither in namespace %q nor in the change set", what, id, a.ns)
	}
	if err != nil {
		return fmt.Errorf("%s: look up %s %s: %w", field, what, id, err)
	}
	a.known[id] = true
	return nil
}

// upsertEntity replaces every field of e, its names and its search entry.
func (a *applier) upsertEntity(e kgmem.Entity) error {
	attrs, err := jsonMap("attributes", e.Attributes)
	if err != nil {
		return err
	}
	args := append([]any{e.Namespace, e.ID, e.Name, e.Type, e.Summary, jsonList(e.Aliases), namesLower(e), attrs,
		millis(e.CreatedAt), millis(e.UpdatedAt)}, decayArgs(e.Decay)...)
	var rid int64
	if err := a.stmt(a.st.upsertEntity).QueryRowContext(a.ctx, args...).Scan(&rid); err != nil {
		return fmt.Errorf("upsert: %w", err)
	}
	a.known[e.ID] = true
	if _, err := a.stmt(a.st.clearNames).ExecContext(a.ctx, e.Namespace, e.ID); err != nil {
		return fmt.Errorf("clear names: %w", err)
	}
	addName := a.stmt(a.st.addName)
	for _, n := range e.Names() {
		if key := kgmem.NormalizeName(n); key != "" {
			if _, err := addName.ExecContext(a.ctx, e.Namespace, key, e.ID); err != nil {
				return fmt.Errorf("add name: %w", err)
			}
		}
	}
	return a.replaceFTS("entity_fts", rid, entitySearchText(e))
}

// insertEpisodes inserts the episodes whose ids are not stored yet (nor
// earlier in eps), leaving the others untouched, a chunk of rows per
// statement (episodeChunks): a statement per episode was most of a bulk
// import's writer time. Values are bound as they are, invalid UTF-8
// included.
func (a *applier) insertEpisodes(eps []kgmem.Episode) error {
	if len(eps) == 0 {
		return nil
	}
	args, metas := make([]any, 0, len(eps)*episodeRowArgs), make([]any, len(eps))
	for i, e := range eps {
		meta, err := jsonMap("metadata", e.Metadata)
		if err != nil {
			return fmt.Errorf("episodes[%d] %s: %w", i, e.ID, err)
		}
		metas[i] = meta
		args = append(append(args, a.ns, e.ID, e.ThreadID, e.MessageID, e.Role, e.Name, e.Content, millis(e.Timestamp), meta,
			millis(e.CreatedAt)), decayArgs(e.Decay)...)
	}
	rids := map[string]int64{}
	for row := 0; row < len(eps); {
		n := chunkFor(len(eps) - row)
		chunk := args[row*episodeRowArgs : (row+n)*episodeRowArgs]
		if err := a.insertEpisodeRows(a.st.insertEpisodes[n], chunk, rids); err != nil {
			return fmt.Errorf("insert episodes: %w", err)
		}
		row += n
	}
	for i, e := range eps {
		rid, ok := rids[e.ID]
		if !ok {
			continue // already stored: left untouched
		}
		delete(rids, e.ID) // a repeated id was inserted once, by its first row
		if err := a.inserted(e, metas[i], rid); err != nil {
			return fmt.Errorf("episodes[%d] %s: %w", i, e.ID, err)
		}
	}
	return nil
}

// chunkFor returns the largest of episodeChunks not over rows.
func chunkFor(rows int) int {
	for _, n := range episodeChunks {
		if n <= rows {
			return n
		}
	}
	return 1
}

// insertEpisodeRows runs one of the episode inserts with args and records
// the rowid of each episode it inserted in rids, by id.
func (a *applier) insertEpisodeRows(st *sql.Stmt, args []any, rids map[string]int64) error {
	res, err := a.stmt(st).QueryContext(a.ctx, args...)
	if err != nil {
		return err
	}
	defer res.Close()
	for res.Next() {
		var id string
		var rid int64
		if err := res.Scan(&id, &rid); err != nil {
			return err
		}
		rids[id] = rid
	}
	return res.Err()
}

// inserted records what inserting e (with metadata meta) as rowid rid
// changes besides its row: known ids, the thread order, the episode cache
// and its search entry.
func (a *applier) inserted(e kgmem.Episode, meta any, rid int64) error {
	a.known[e.ID] = true
	if !e.Timestamp.IsZero() {
		a.threaded = append(a.threaded, threadInsert{thread: e.ThreadID, threadEntry: threadEntry{id: e.ID, ts: e.Timestamp.UnixMilli(), rid: rid}})
	}
	stored := e
	stored.Timestamp, stored.CreatedAt, stored.Decay = storedTime(e.Timestamp), storedTime(e.CreatedAt), storedDecay(e.Decay)
	var err error
	if stored.Metadata, err = storedMap(meta); err != nil {
		return err
	}
	a.insertedEpisodes = append(a.insertedEpisodes, stored)
	// Inserted just now: no entry of its to remove.
	return a.setFTS("episode_fts", rid, episodeText(e.Name, e.Content), false)
}

// upsertFact writes every field of f and its search entry. A stored fact is
// updated in place, its indexed columns only when their values change:
// SQLite rewrites the entries of every index over a column the statement
// sets, equal value or not, and the upsert it replaced set them all — a
// restatement that only added an episode rewrote the fact's seven index
// entries, one random page each, and its search entry.
func (a *applier) upsertFact(f kgmem.Fact) error {
	attrs, err := jsonMap("attributes", f.Attributes)
	if err != nil {
		return err
	}
	common := append([]any{f.Text, f.Confidence, jsonList(f.Episodes), attrs, millis(f.CreatedAt), millis(f.ExpiredAt)},
		decayArgs(f.Decay)...)
	var old storedFact
	err = a.stmt(a.st.storedFact).QueryRowContext(a.ctx, a.ns, f.ID).Scan(&old.rid, &old.subjectID, &old.predicate, &old.objectID,
		&old.text, &old.importance, &old.validAt, &old.invalidAt)
	if errors.Is(err, sql.ErrNoRows) {
		args := append([]any{a.ns, f.ID, f.SubjectID, f.Predicate, f.ObjectID, f.Importance, millis(f.ValidAt), millis(f.InvalidAt)}, common...)
		var rid int64
		if err := a.stmt(a.st.insertFact).QueryRowContext(a.ctx, args...).Scan(&rid); err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		// Inserted just now: no entry of its to remove.
		return a.setFTS("fact_fts", rid, f.Text, false)
	}
	if err != nil {
		return fmt.Errorf("read stored fact: %w", err)
	}
	var changed factIndexed
	args := common
	if old.subjectID != f.SubjectID || old.predicate != f.Predicate || old.objectID != f.ObjectID {
		changed |= factEndsChanged
		args = append(args, f.SubjectID, f.Predicate, f.ObjectID)
	}
	if old.importance != int64(f.Importance) {
		changed |= factImportanceChanged
		args = append(args, f.Importance)
	}
	if old.validAt != millis(f.ValidAt) || old.invalidAt != millis(f.InvalidAt) {
		changed |= factValidityChanged
		args = append(args, millis(f.ValidAt), millis(f.InvalidAt))
	}
	if _, err := a.stmt(a.st.updateFact[changed]).ExecContext(a.ctx, append(args, old.rid)...); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if old.text == f.Text {
		return nil
	}
	return a.replaceFTS("fact_fts", old.rid, f.Text)
}

// storedFact is what upsertFact reads of a stored fact: its rowid, the
// columns its indexes cover and its text, which its search entry indexes.
type storedFact struct {
	rid                            int64
	subjectID, predicate, objectID string
	text                           string
	importance                     int64
	validAt, invalidAt             any // as millis encodes them: nil or int64
}

// upsertItem replaces every field of it and its search entry; an item
// without text has none.
func (a *applier) upsertItem(it kgmem.Item) error {
	args := append([]any{it.Namespace, it.ID, it.Key, string(it.Value), it.Text, jsonList(it.FactIDs), millis(it.CreatedAt), millis(it.UpdatedAt)},
		append(decayArgs(it.Decay), itemTTL(it), millis(deref(it.ExpiresAt)))...)
	var rid int64
	if err := a.stmt(a.st.upsertItem).QueryRowContext(a.ctx, args...).Scan(&rid); err != nil {
		return fmt.Errorf("upsert: %w", err)
	}
	return a.replaceFTS("item_fts", rid, it.Text)
}

// replaceFTS sets the search entry of record rid in the FTS table fts: the
// namespace token in the ns column, the namespace's words in the body column.
// Entries are collected and written by writeFTS at the end of the change set
// or of its group: FTS5 flushes its pending entries to a new segment at every
// statement savepoint, so one statement per record made one segment per
// record (and their merges): 40% of the time of a large Apply.
func (a *applier) replaceFTS(fts string, rid int64, body string) error {
	return a.setFTS(fts, rid, body, true)
}

// setFTS collects the search entry of record rid in the FTS table fts;
// replaced says the record may have had one before (an upsert), which is
// removed first. A record inserted in this transaction has none: removing
// it was an FTS5 query per change set that never found anything.
func (a *applier) setFTS(fts string, rid int64, body string, replaced bool) error {
	b := a.fts[fts]
	if b == nil {
		b = &ftsBatch{bodies: map[int64]string{}}
		a.fts[fts] = b
	}
	if _, seen := b.bodies[rid]; !seen {
		b.rids = append(b.rids, rid)
		if replaced {
			b.replaced = append(b.replaced, rid)
		}
	}
	indexed, ok := a.indexed[body]
	if !ok {
		indexed = indexText(a.pre, body)
	}
	b.bodies[rid] = indexed
	return nil
}

// searchBodies returns the search entry body (indexText) of each text cs
// may index, by text: its episodes', facts', entities' and items'. Apply
// makes them in the caller's goroutine, before the change set waits for the
// writer, which is one for all callers, so that the writer does not split
// and prefix every word. A record stored already, and so not indexed
// again, has its body made for nothing.
func searchBodies(cs kgmem.ChangeSet) map[string]string {
	pre := wordPrefix(cs.Namespace)
	bodies := make(map[string]string, len(cs.Episodes)+len(cs.Facts)+len(cs.Entities)+len(cs.Items))
	add := func(text string) {
		if _, ok := bodies[text]; !ok {
			bodies[text] = indexText(pre, text)
		}
	}
	for _, e := range cs.Episodes {
		add(episodeText(e.Name, e.Content))
	}
	for _, f := range cs.Facts {
		add(f.Text)
	}
	for _, e := range cs.Entities {
		add(entitySearchText(e))
	}
	for _, it := range cs.Items {
		add(it.Text)
	}
	return bodies
}

// entitySearchText is what an entity's search entry indexes: its names, a
// line each.
func entitySearchText(e kgmem.Entity) string { return strings.Join(e.Names(), "\n") }

// writeFTS writes the search entries the appliers collected, per FTS table
// one statement removing the old entries of upserted records and one
// inserting the new. A group
// commit writes all its change sets' entries at its end: FTS5 flushes its
// pending entries at every write statement's savepoint, so entries written
// after each change set were flushed by the next one's first write, a
// segment (and its merges) per change set. An entry of a record more than
// one applier wrote is the last one's.
func writeFTS(ctx context.Context, tx *sql.Tx, st *writeStmts, appliers ...*applier) error {
	for _, src := range ftsSources() {
		var replaced []int64
		var entries [][3]any // rowid, namespace token, body
		at := map[int64]int{}
		for _, a := range appliers {
			b := a.fts[src.fts]
			if b == nil {
				continue
			}
			replaced = append(replaced, b.replaced...)
			for _, rid := range b.rids {
				e := [3]any{rid, a.tok, b.bodies[rid]}
				if i, ok := at[rid]; ok {
					entries[i] = e
					continue
				}
				at[rid] = len(entries)
				entries = append(entries, e)
			}
		}
		if len(entries) == 0 {
			continue
		}
		if len(replaced) > 0 {
			ridsJSON, err := json.Marshal(replaced)
			if err != nil {
				return fmt.Errorf("encode %s rowids: %w", src.fts, err)
			}
			if _, err := tx.StmtContext(ctx, st.ftsDelete[src.fts]).ExecContext(ctx, string(ridsJSON)); err != nil {
				return fmt.Errorf("clear search entries in %s: %w", src.fts, err)
			}
		}
		entriesJSON, err := json.Marshal(entries)
		if err != nil {
			return fmt.Errorf("encode %s entries: %w", src.fts, err)
		}
		if _, err := tx.StmtContext(ctx, st.ftsInsert[src.fts]).ExecContext(ctx, string(entriesJSON)); err != nil {
			return fmt.Errorf("index for search in %s: %w", src.fts, err)
		}
	}
	return nil
}
