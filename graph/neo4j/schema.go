package neo4j

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// schemaVersion is the layout this package writes, kept in the
// (:KgmemSchema {name: "kgmem"}) node. Bump it and add a step to migrate
// when the layout changes.
const schemaVersion = 1

// fulltextAnalyzer is the Lucene analyzer of every full-text index:
// Lucene's EnglishAnalyzer (Unicode word boundaries, possessives dropped,
// lower case, English stop words, Porter stemming), so "leads" finds "lead"
// and "leading" as the embedded store's FTS5 porter tokenizer does.
// Diacritics are folded in Go before indexing and searching (foldText),
// since this analyzer does not fold them.
const fulltextAnalyzer = "english"

// Full-text index names, passed to db.index.fulltext.queryNodes. They index
// the ft_scope and ft_en properties. Databases written before them also
// have standard-folding indexes over ft_scope and ft_text (named without
// the _en suffix), which servers of that version search; drop
// kgmem_entity_text, kgmem_episode_text and kgmem_fact_text once none runs.
const (
	ftEntity  = "kgmem_entity_text_en"
	ftEpisode = "kgmem_episode_text_en"
	ftFact    = "kgmem_fact_text_en"
	ftItem    = "kgmem_item_text_en"
)

// qBackfillFullText gives nodes stored before the ft_en property their
// search text (ft_text, not folded: queries also search unfolded words).
const qBackfillFullText = `MATCH (n) WHERE (n:Entity OR n:Episode OR n:FactText) AND n.ft_en IS NULL AND n.ft_text IS NOT NULL
	CALL (n) { SET n.ft_en = n.ft_text } IN TRANSACTIONS OF 5000 ROWS`

// qDecayFromLearning restarts, at their creation, the forgetting curve of
// records whose curve started at a back-dated message time (before the
// curve started when kgmem learned a record), and brings back those the
// sweep forgot because of it: the next sweep decides again, by the new rule.
// Nodes first, then facts (whose state is on their relationship).
var qDecayFromLearning = []string{
	`MATCH (n) WHERE (n:Entity OR n:Episode OR n:` + labelItem + `)
	AND n.created_at IS NOT NULL AND n.last_reinforced_at < n.created_at
	CALL (n) { SET n.last_reinforced_at = n.created_at, n.forgotten_at = null } IN TRANSACTIONS OF 5000 ROWS`,
	`MATCH (:Entity)-[r]->(:Entity) WHERE r.created_at IS NOT NULL AND r.last_reinforced_at < r.created_at
	CALL (r) { SET r.last_reinforced_at = r.created_at, r.forgotten_at = null } IN TRANSACTIONS OF 5000 ROWS`,
}

// flagDecayFromLearning marks on the schema node that qDecayFromLearning ran.
const flagDecayFromLearning = "decay_from_learning"

// schemaStatements create every constraint and index; each is idempotent.
// The (namespace, id) uniqueness constraints also serve every lookup by id.
var schemaStatements = []string{
	"CREATE CONSTRAINT kgmem_entity_key IF NOT EXISTS FOR (n:Entity) REQUIRE (n.namespace, n.id) IS UNIQUE",
	"CREATE CONSTRAINT kgmem_episode_key IF NOT EXISTS FOR (n:Episode) REQUIRE (n.namespace, n.id) IS UNIQUE",
	"CREATE CONSTRAINT kgmem_fact_key IF NOT EXISTS FOR (n:FactText) REQUIRE (n.namespace, n.id) IS UNIQUE",
	"CREATE CONSTRAINT kgmem_item_key IF NOT EXISTS FOR (n:" + labelItem + ") REQUIRE (n.namespace, n.id) IS UNIQUE",
	"CREATE CONSTRAINT kgmem_lock_key IF NOT EXISTS FOR (n:" + labelLock + ") REQUIRE (n.scope, n.namespace) IS UNIQUE",
	"CREATE CONSTRAINT kgmem_api_key IF NOT EXISTS FOR (n:" + labelKey + ") REQUIRE (n.scope, n.id) IS UNIQUE",
	"CREATE CONSTRAINT kgmem_job IF NOT EXISTS FOR (n:" + labelJob + ") REQUIRE (n.scope, n.id) IS UNIQUE",
	"CREATE CONSTRAINT kgmem_job_seq IF NOT EXISTS FOR (n:" + labelJobSeq + ") REQUIRE n.scope IS UNIQUE",
	"CREATE INDEX kgmem_job_lease IF NOT EXISTS FOR (n:" + labelJob + ") ON (n.scope, n.status)",
	"CREATE INDEX kgmem_vector_op IF NOT EXISTS FOR (n:" + labelVectorOp + ") ON (n.scope, n.owner)",
	"CREATE CONSTRAINT kgmem_outbox_owner IF NOT EXISTS FOR (n:" + labelOutboxOwner + ") REQUIRE (n.scope, n.owner) IS UNIQUE",
	"CREATE CONSTRAINT kgmem_settings_key IF NOT EXISTS FOR (n:KgmemSettings) REQUIRE n.namespace IS UNIQUE",
	"CREATE CONSTRAINT kgmem_schema_key IF NOT EXISTS FOR (n:KgmemSchema) REQUIRE n.name IS UNIQUE",
	// One graph version node per namespace (version.go), found by this index.
	"CREATE CONSTRAINT kgmem_graph_version_key IF NOT EXISTS FOR (n:" + labelGraphVersion + ") REQUIRE n.namespace IS UNIQUE",
	"CREATE INDEX kgmem_entity_ns IF NOT EXISTS FOR (n:Entity) ON (n.namespace)",
	"CREATE INDEX kgmem_entity_name IF NOT EXISTS FOR (n:Entity) ON (n.namespace, n.norm_name)",
	// Every name and alias of an entity, for exact lookups with CONTAINS (see nameKeys).
	"CREATE TEXT INDEX kgmem_entity_name_keys IF NOT EXISTS FOR (n:Entity) ON (n.name_keys)",
	"CREATE INDEX kgmem_entity_type IF NOT EXISTS FOR (n:Entity) ON (n.namespace, n.type)",
	"CREATE INDEX kgmem_episode_ns IF NOT EXISTS FOR (n:Episode) ON (n.namespace)",
	// Thread neighbours seek (namespace, thread_id, timestamp). Databases
	// written by older servers also hold kgmem_episode_thread on (namespace,
	// thread_id), which those servers' queries name; it is left for them,
	// and may be dropped once every server is this version or newer.
	"CREATE INDEX kgmem_episode_thread_time IF NOT EXISTS FOR (n:Episode) ON (n.namespace, n.thread_id, n.timestamp)",
	"CREATE INDEX kgmem_item_ns IF NOT EXISTS FOR (n:" + labelItem + ") ON (n.namespace)",
	"CREATE INDEX kgmem_item_expires IF NOT EXISTS FOR (n:" + labelItem + ") ON (n.namespace, n.expires_at)",
	"CREATE INDEX kgmem_fact_ns IF NOT EXISTS FOR (n:FactText) ON (n.namespace)",
	"CREATE INDEX kgmem_fact_subject IF NOT EXISTS FOR (n:FactText) ON (n.namespace, n.subject_id)",
	"CREATE INDEX kgmem_fact_object IF NOT EXISTS FOR (n:FactText) ON (n.namespace, n.object_id)",
	"CREATE INDEX kgmem_fact_predicate IF NOT EXISTS FOR (n:FactText) ON (n.namespace, n.predicate)",
	"CREATE FULLTEXT INDEX " + ftEntity + " IF NOT EXISTS FOR (n:Entity) ON EACH [n.ft_scope, n.ft_en] OPTIONS {indexConfig: {`fulltext.analyzer`: '" + fulltextAnalyzer + "'}}",
	"CREATE FULLTEXT INDEX " + ftEpisode + " IF NOT EXISTS FOR (n:Episode) ON EACH [n.ft_scope, n.ft_en] OPTIONS {indexConfig: {`fulltext.analyzer`: '" + fulltextAnalyzer + "'}}",
	"CREATE FULLTEXT INDEX " + ftFact + " IF NOT EXISTS FOR (n:FactText) ON EACH [n.ft_scope, n.ft_en] OPTIONS {indexConfig: {`fulltext.analyzer`: '" + fulltextAnalyzer + "'}}",
	"CREATE FULLTEXT INDEX " + ftItem + " IF NOT EXISTS FOR (n:" + labelItem + ") ON EACH [n.ft_scope, n.ft_en] OPTIONS {indexConfig: {`fulltext.analyzer`: '" + fulltextAnalyzer + "'}}",
}

// migrate brings the database to schemaVersion: it refuses a database written
// by a newer layout, creates what is missing and waits for the indexes to be
// online.
func (s *Store) migrate(ctx context.Context) error {
	recs, err := s.read(ctx, "OPTIONAL MATCH (v:KgmemSchema {name: 'kgmem'}) RETURN v.version AS version", nil)
	if err != nil {
		return fmt.Errorf("schema version: %w", err)
	}
	if len(recs) == 1 {
		if v, ok := recs[0].Values[0].(int64); ok && v > schemaVersion {
			return fmt.Errorf("%w: the database has kgmem schema version %d, this build knows %d", kgmem.ErrConflict, v, schemaVersion)
		}
	}
	for _, stmt := range schemaStatements {
		// Schema changes cannot share a transaction with data, nor with each other.
		if err := s.write(ctx, func(tx neo4j.ManagedTransaction) error {
			_, err := run(ctx, tx, stmt, nil)
			return err
		}); err != nil {
			return fmt.Errorf("schema: %s: %w", stmt, err)
		}
	}
	if err := s.backfillFullText(ctx); err != nil {
		return err
	}
	if err := s.onceOnData(ctx, flagDecayFromLearning, qDecayFromLearning...); err != nil {
		return err
	}
	if err := s.autoCommit(ctx, "CALL db.awaitIndexes(300)", nil); err != nil {
		return fmt.Errorf("schema: waiting for indexes: %w", err)
	}
	err = s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, `MERGE (v:KgmemSchema {name: 'kgmem'})
			SET v.version = CASE WHEN coalesce(v.version, 0) < $version THEN $version ELSE v.version END,
			    v.updated_at = datetime()`, map[string]any{"version": schemaVersion})
		return err
	})
	if err != nil {
		return fmt.Errorf("schema: version: %w", err)
	}
	return nil
}

// backfillFullText runs qBackfillFullText once per database: a flag on the
// schema node records that it ran. (Concurrent first opens may both run it;
// it is idempotent.)
func (s *Store) backfillFullText(ctx context.Context) error {
	recs, err := s.read(ctx, "OPTIONAL MATCH (v:KgmemSchema {name: 'kgmem'}) RETURN coalesce(v.ft_en_backfilled, false)", nil)
	if err != nil {
		return fmt.Errorf("schema: full-text backfill flag: %w", err)
	}
	if done, _ := recs[0].Values[0].(bool); done {
		return nil
	}
	if err := s.autoCommit(ctx, qBackfillFullText, nil); err != nil {
		return fmt.Errorf("schema: full-text backfill: %w", err)
	}
	return s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, "MERGE (v:KgmemSchema {name: 'kgmem'}) SET v.ft_en_backfilled = true", nil)
		return err
	})
}

// onceOnData runs the data migration qs, in order, once per database: the
// flag (a property name, a constant) on the schema node records that it
// ran. (Concurrent first opens may both run it; each query is idempotent.)
func (s *Store) onceOnData(ctx context.Context, flag string, qs ...string) error {
	recs, err := s.read(ctx, "OPTIONAL MATCH (v:KgmemSchema {name: 'kgmem'}) RETURN coalesce(v."+flag+", false)", nil)
	if err != nil {
		return fmt.Errorf("schema: %s flag: %w", flag, err)
	}
	if done, _ := recs[0].Values[0].(bool); done {
		return nil
	}
	for _, q := range qs {
		if err := s.autoCommit(ctx, q, nil); err != nil {
			return fmt.Errorf("schema: %s: %w", flag, err)
		}
	}
	return s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, "MERGE (v:KgmemSchema {name: 'kgmem'}) SET v."+flag+" = true", nil)
		return err
	})
}
