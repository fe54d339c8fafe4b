// Package graph documents the kgmem.GraphStore contract that every graph
// backend implements; graph/graphtest checks it and graph/sqlite (embedded
// default) and graph/neo4j pass it. The interface comments in the root package
// say what each method does; this page settles what they leave open.
//
// Namespaces. Every method validates its namespace with kgmem.ParseNamespace
// and fails with kgmem.ErrInvalid on a bad one. Reads never return, and writes
// never touch, records of another namespace; "acme" and "acme/users" are
// unrelated scopes. An id that exists only in another namespace is "not found".
//
// Apply. One transaction: on any error nothing of the ChangeSet is written.
// It fails with kgmem.ErrInvalid (a *kgmem.FieldError naming the field, such
// as "facts[2].object_id") when a record has no id, a record's Namespace is not
// cs.Namespace (an empty one included), an entity name normalises to "", a fact
// has no predicate or a non-finite confidence, a fact's subject or object is
// neither stored in the namespace nor in the ChangeSet, a mention's episode or
// entity is neither, or attributes cannot be encoded as JSON. Episodes are
// inserted if absent; entities and facts replace every field; duplicate
// mentions are ignored. An empty ChangeSet is a no-op and creates no namespace.
//
// Concurrency. Every method is safe for concurrent use. Concurrent change
// sets that upsert the same entity all succeed (a backend retries its own
// transient lock or deadlock errors), and re-applying a ChangeSet is
// idempotent. A cancelled context fails the call and writes nothing.
//
// Time. Every time round-trips in UTC with at least millisecond precision;
// the zero time stays zero.
//
// Expired facts. A fact is expired when ExpiredAt is set (kgmem no longer
// believes it). ListFacts, SearchText and Neighborhood skip expired facts
// unless IncludeExpired; a fact with only InvalidAt set ("worked there until
// 2020") is still current belief and is returned. Stores do not filter
// forgotten records (Decay.ForgottenAt); the engine decides what to show.
//
// Listing. FindEntities, ListFacts and ListEpisodes return records in id order
// (byte order), starting after Page.After (an exclusive lower bound that need
// not exist); Limit 0 means 100, a negative Limit is kgmem.ErrInvalid.
// EntityFilter.Names matches kgmem.NormalizeName of the name or any alias;
// EntityFilter.Query matches when the lower-cased name or an alias contains the
// lower-cased query as a plain substring (never a pattern).
//
// SearchText. BM25 over fact text, episode content prefixed with the speaker's
// name, and entity names and aliases. Scores are positive and higher is better;
// hits are sorted best first, ties by kind then id. Query text is plain words:
// it is tokenised by the store, and no character of it is ever query syntax, so
// hostile text is never an error. Text without searchable words returns no
// hits. Limit 0 means 10; a negative Limit or an unknown Kind is kgmem.ErrInvalid.
// Score values are backend specific and must not be compared across backends.
//
// Neighborhood. Breadth-first from the seeds, ignoring fact direction. Seeds
// missing from the namespace are ignored. Each entity reached at distance
// d < Depth contributes at most FanOut facts (most important first, then by
// id), whose other ends are reached at distance d+1 unless already nearer.
// Depth 0 means 1 and FanOut 0 means 50; negative values are kgmem.ErrInvalid.
// Every returned fact has both ends among the returned entities, and Distance
// has exactly one entry per returned entity.
//
// SetDecay is atomic: a record missing from the namespace fails the call with
// kgmem.ErrNotFound and nothing changes; an unknown kind is kgmem.ErrInvalid.
//
// Namespaces lists, in byte order, every namespace with a record or stored
// settings. PurgeNamespace removes records, mentions, search entries and
// settings of exactly that namespace; purging an empty namespace returns zero
// counts. PutSettings rejects Decay that is not valid JSON with kgmem.ErrInvalid.
package graph
