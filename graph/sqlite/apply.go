package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/kgmem/kgmem"
)

// Apply writes cs in one transaction: all of it or, on any error, nothing.
func (s *Store) Apply(ctx context.Context, cs kgmem.ChangeSet) error {
	if err := validate(cs); err != nil {
		return fmt.Errorf("sqlite: apply: %w", err)
	}
	if cs.Empty() {
		return nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error { return applyTx(ctx, tx, cs) })
	if err != nil {
		return fmt.Errorf("sqlite: apply to %s: %w", cs.Namespace, err)
	}
	return nil
}

// write runs fn in one immediate transaction on the writer connection.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", wrapErr(err))
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return wrapErr(err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", wrapErr(err))
	}
	return nil
}

// validate checks everything about cs that needs no database.
func validate(cs kgmem.ChangeSet) error {
	if _, err := kgmem.ParseNamespace(string(cs.Namespace)); err != nil {
		return err
	}
	sameNS := func(field string, ns kgmem.Namespace) error {
		if ns != cs.Namespace {
			return kgmem.Invalidf(field, "is %q, but the change set is for %q", ns, cs.Namespace)
		}
		return nil
	}
	var errs []error
	for i, e := range cs.Episodes {
		p := fmt.Sprintf("episodes[%d]", i)
		errs = append(errs, sameNS(p+".namespace", e.Namespace), finite(p+".decay.stability", e.Decay.Stability))
		if e.ID == "" {
			errs = append(errs, kgmem.Invalidf(p+".id", "is required"))
		}
	}
	for i, e := range cs.Entities {
		p := fmt.Sprintf("entities[%d]", i)
		errs = append(errs, sameNS(p+".namespace", e.Namespace), finite(p+".decay.stability", e.Decay.Stability))
		if e.ID == "" {
			errs = append(errs, kgmem.Invalidf(p+".id", "is required"))
		}
		if kgmem.NormalizeName(e.Name) == "" {
			errs = append(errs, kgmem.Invalidf(p+".name", "has no letters or digits: %q", e.Name))
		}
	}
	for i, f := range cs.Facts {
		p := fmt.Sprintf("facts[%d]", i)
		errs = append(errs, sameNS(p+".namespace", f.Namespace), finite(p+".confidence", f.Confidence), finite(p+".decay.stability", f.Decay.Stability))
		for _, req := range [][2]string{{"id", f.ID}, {"subject_id", f.SubjectID}, {"predicate", f.Predicate}, {"object_id", f.ObjectID}} {
			if strings.TrimSpace(req[1]) == "" {
				errs = append(errs, kgmem.Invalidf(p+"."+req[0], "is required"))
			}
		}
	}
	for i, m := range cs.Mentions {
		p := fmt.Sprintf("mentions[%d]", i)
		if m.EpisodeID == "" {
			errs = append(errs, kgmem.Invalidf(p+".episode_id", "is required"))
		}
		if m.EntityID == "" {
			errs = append(errs, kgmem.Invalidf(p+".entity_id", "is required"))
		}
	}
	return errors.Join(errs...)
}

// finite rejects NaN and infinities, which SQLite cannot store as numbers.
func finite(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return kgmem.Invalidf(field, "must be a finite number, got %v", v)
	}
	return nil
}

// applyTx writes cs inside tx: entities first, so that facts and mentions can
// point at entities of the same change set.
func applyTx(ctx context.Context, tx *sql.Tx, cs kgmem.ChangeSet) error {
	ns, tok := cs.Namespace, nsToken(cs.Namespace)
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO namespaces (namespace) VALUES (?)`, ns); err != nil {
		return fmt.Errorf("register namespace: %w", err)
	}
	for i, e := range cs.Entities {
		if err := upsertEntity(ctx, tx, tok, e); err != nil {
			return fmt.Errorf("entities[%d] %s: %w", i, e.ID, err)
		}
	}
	for i, e := range cs.Episodes {
		if err := insertEpisode(ctx, tx, tok, e); err != nil {
			return fmt.Errorf("episodes[%d] %s: %w", i, e.ID, err)
		}
	}
	for i, f := range cs.Facts {
		p := fmt.Sprintf("facts[%d]", i)
		for _, ref := range [][2]string{{"subject_id", f.SubjectID}, {"object_id", f.ObjectID}} {
			if ok, err := exists(ctx, tx, "entities", ns, ref[1]); err != nil {
				return fmt.Errorf("%s.%s: %w", p, ref[0], err)
			} else if !ok {
				return kgmem.Invalidf(p+"."+ref[0], "entity %q exists neither in namespace %q nor in the change set", ref[1], ns)
			}
		}
		if err := upsertFact(ctx, tx, tok, f); err != nil {
			return fmt.Errorf("%s %s: %w", p, f.ID, err)
		}
	}
	for i, m := range cs.Mentions {
		p := fmt.Sprintf("mentions[%d]", i)
		if ok, err := exists(ctx, tx, "episodes", ns, m.EpisodeID); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		} else if !ok {
			return kgmem.Invalidf(p+".episode_id", "episode %q exists neither in namespace %q nor in the change set", m.EpisodeID, ns)
		}
		if ok, err := exists(ctx, tx, "entities", ns, m.EntityID); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		} else if !ok {
			return kgmem.Invalidf(p+".entity_id", "entity %q exists neither in namespace %q nor in the change set", m.EntityID, ns)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO mentions (namespace, episode_id, entity_id) VALUES (?, ?, ?)`,
			ns, m.EpisodeID, m.EntityID); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

// exists reports whether table holds id in ns. table is one of this
// package's constant table names, never input.
func exists(ctx context.Context, tx *sql.Tx, table string, ns kgmem.Namespace, id string) (bool, error) {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM `+table+` WHERE namespace = ? AND id = ?`, ns, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up %s %s: %w", table, id, err)
	}
	return true, nil
}

// upsertEntity replaces every field of e, its names and its search entry.
func upsertEntity(ctx context.Context, tx *sql.Tx, tok string, e kgmem.Entity) error {
	attrs, err := jsonMap("attributes", e.Attributes)
	if err != nil {
		return err
	}
	args := append([]any{e.Namespace, e.ID, e.Name, e.Type, e.Summary, jsonList(e.Aliases), namesLower(e), attrs,
		millis(e.CreatedAt), millis(e.UpdatedAt)}, decayArgs(e.Decay)...)
	var rid int64
	err = tx.QueryRowContext(ctx, `
		INSERT INTO entities (namespace, id, name, type, summary, aliases, names_lower, attributes, created_at, updated_at,
			stability, reinforced_at, reinforcements, pinned, forgotten_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (namespace, id) DO UPDATE SET
			name = excluded.name, type = excluded.type, summary = excluded.summary, aliases = excluded.aliases,
			names_lower = excluded.names_lower, attributes = excluded.attributes,
			created_at = excluded.created_at, updated_at = excluded.updated_at,
			stability = excluded.stability, reinforced_at = excluded.reinforced_at,
			reinforcements = excluded.reinforcements, pinned = excluded.pinned, forgotten_at = excluded.forgotten_at
		RETURNING rid`, args...).Scan(&rid)
	if err != nil {
		return fmt.Errorf("upsert: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM entity_names WHERE namespace = ? AND entity_id = ?`, e.Namespace, e.ID); err != nil {
		return fmt.Errorf("clear names: %w", err)
	}
	for _, n := range e.Names() {
		key := kgmem.NormalizeName(n)
		if key == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO entity_names (namespace, norm, entity_id) VALUES (?, ?, ?)`,
			e.Namespace, key, e.ID); err != nil {
			return fmt.Errorf("add name: %w", err)
		}
	}
	return replaceFTS(ctx, tx, "entity_fts", rid, tok, strings.Join(e.Names(), "\n"))
}

// insertEpisode inserts e unless its id is already stored.
func insertEpisode(ctx context.Context, tx *sql.Tx, tok string, e kgmem.Episode) error {
	meta, err := jsonMap("metadata", e.Metadata)
	if err != nil {
		return err
	}
	args := append([]any{e.Namespace, e.ID, e.ThreadID, e.MessageID, e.Role, e.Name, e.Content, millis(e.Timestamp), meta,
		millis(e.CreatedAt)}, decayArgs(e.Decay)...)
	var rid int64
	err = tx.QueryRowContext(ctx, `
		INSERT INTO episodes (namespace, id, thread_id, message_id, role, name, content, timestamp, metadata, created_at,
			stability, reinforced_at, reinforcements, pinned, forgotten_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (namespace, id) DO NOTHING
		RETURNING rid`, args...).Scan(&rid)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // already stored: left untouched
	}
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	body := e.Content
	if e.Name != "" {
		body = e.Name + ": " + e.Content
	}
	return replaceFTS(ctx, tx, "episode_fts", rid, tok, body)
}

// upsertFact replaces every field of f and its search entry.
func upsertFact(ctx context.Context, tx *sql.Tx, tok string, f kgmem.Fact) error {
	attrs, err := jsonMap("attributes", f.Attributes)
	if err != nil {
		return err
	}
	args := append([]any{f.Namespace, f.ID, f.SubjectID, f.Predicate, f.ObjectID, f.Text, f.Confidence, f.Importance,
		jsonList(f.Episodes), attrs, millis(f.ValidAt), millis(f.InvalidAt), millis(f.CreatedAt), millis(f.ExpiredAt)},
		decayArgs(f.Decay)...)
	var rid int64
	err = tx.QueryRowContext(ctx, `
		INSERT INTO facts (namespace, id, subject_id, predicate, object_id, text, confidence, importance, episodes, attributes,
			valid_at, invalid_at, created_at, expired_at, stability, reinforced_at, reinforcements, pinned, forgotten_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (namespace, id) DO UPDATE SET
			subject_id = excluded.subject_id, predicate = excluded.predicate, object_id = excluded.object_id,
			text = excluded.text, confidence = excluded.confidence, importance = excluded.importance,
			episodes = excluded.episodes, attributes = excluded.attributes,
			valid_at = excluded.valid_at, invalid_at = excluded.invalid_at,
			created_at = excluded.created_at, expired_at = excluded.expired_at,
			stability = excluded.stability, reinforced_at = excluded.reinforced_at,
			reinforcements = excluded.reinforcements, pinned = excluded.pinned, forgotten_at = excluded.forgotten_at
		RETURNING rid`, args...).Scan(&rid)
	if err != nil {
		return fmt.Errorf("upsert: %w", err)
	}
	return replaceFTS(ctx, tx, "fact_fts", rid, tok, f.Text)
}

// replaceFTS sets the search entry of record rid in table (a constant name).
func replaceFTS(ctx context.Context, tx *sql.Tx, table string, rid int64, tok, body string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE rowid = ?`, rid); err != nil {
		return fmt.Errorf("clear search entry: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (rowid, ns, body) VALUES (?, ?, ?)`, rid, tok, body); err != nil {
		return fmt.Errorf("index for search: %w", err)
	}
	return nil
}
