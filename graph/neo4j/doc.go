// Package neo4j is the production kgmem.GraphStore on Neo4j 5.26 (Community or
// Enterprise), through the official neo4j-go-driver v5.
//
// The model is the one a person reads in Neo4j Browser:
//
//	(:Entity:Person {id, namespace, name, aliases, type, ...})
//	  -[:LEADS {id, namespace, predicate: "leads", fact, valid_at, invalid_at,
//	            created_at, expired_at, stability, forgotten_at, ...}]->
//	(:Entity:Team {...})
//	(:Episode {id, namespace, thread_id, message_id, role, name, content, timestamp})
//	  -[:MENTIONS]->(:Entity)
//	(:FactText {id, namespace, subject_id, object_id, predicate, rel_type, expired})
//	(:KgmemSettings {namespace, json})   (:KgmemSchema {name, version})
//
// A fact's status (kgmem.FactStatus) reads off its properties: invalidated
// when expired_at is set; else ended when invalid_at is at or before now,
// upcoming when valid_at is after now, current otherwise.
//
// A fact is a relationship typed by its predicate in UPPER_SNAKE_CASE
// (RelType) between its subject and object; an entity carries its type as a
// second label (Label). Both mappings only ever produce identifiers matching a
// fixed pattern, and every value, label and type reaches Cypher as a query
// parameter (Neo4j 5.26 dynamic labels and types, $(...)), so text from an
// LLM or a client is always data, never Cypher.
//
// Every fact also has a small (:FactText) index node. Relationship property
// and full-text indexes in Neo4j are declared per relationship type, and the
// types here are open-ended; the index node gives every fact a constant-time
// lookup by id, a node full-text index over fact text, and a direct handle on
// the relationship (its subject, object and type), which is then reached by
// an Expand(Into) between two index-found nodes. docs/neo4j.md has the
// measurements behind this choice.
//
// Times are stored as Neo4j DATETIME values in UTC, which Browser shows
// readably and Cypher compares natively; the zero time is an absent property.
// Attributes and metadata are stored as JSON strings.
//
// Every read and write is scoped to one namespace: a (namespace, id)
// uniqueness constraint per record label keeps ids per namespace, as in the
// embedded store, and every query matches on namespace. Config.Scope lets
// several independent stores share one database (Community has only one).
package neo4j
