// Package wire is the whole JSON contract of kgmem's REST API: the requests
// as clients send them (times as RFC 3339 strings, the namespace as a
// string) and every answer, from the envelopes of lists to the search
// results, fact views, jobs and decay records. The server (package api)
// decodes requests into these types and converts its engine's results into
// them at its edge; the public Go client (package client) sends and reads
// them. So each body has one definition, and a change to an engine type
// does not change the API unless the server's conversion says so.
//
// The package imports only the standard library and kgmem's root package
// (its domain records: Fact, Episode, Entity, Item…): importing it pulls in
// no engine, storage, web framework or LLM client (TestWireDependencies).
package wire

import (
	"encoding/json"

	"github.com/kgmem/kgmem"
)

// Ingest modes of MemoriesRequest.Mode.
const (
	// ModeSync answers when the messages are stored (the default).
	ModeSync = "sync"
	// ModeAsync answers 202 with a background job.
	ModeAsync = "async"
)

// MemoriesRequest is the body of POST /v1/memories.
type MemoriesRequest struct {
	Namespace kgmem.Namespace `json:"namespace"`
	ThreadID  string          `json:"thread_id,omitempty"`
	Messages  []Message       `json:"messages"`
	// Extract turns the messages into facts with the configured LLM.
	Extract bool `json:"extract,omitempty"`
	// Schema restricts extraction to these entity and relation types.
	Schema *kgmem.Schema `json:"schema,omitempty"`
	// Mode is ModeSync (the default: answer when stored) or ModeAsync (202
	// and a background job).
	Mode string `json:"mode,omitempty"`
}

// Message is one conversation message of a MemoriesRequest.
type Message struct {
	// ID makes re-posting idempotent; the server derives one when empty.
	ID   string `json:"id,omitempty"`
	Role string `json:"role,omitempty"`
	// Name is the speaker's name.
	Name    string `json:"name,omitempty"`
	Content string `json:"content"`
	// Timestamp is RFC 3339 or a date; empty means when it arrives.
	Timestamp string         `json:"timestamp,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// FactsRequest is the body of POST /v1/facts.
type FactsRequest struct {
	Namespace kgmem.Namespace `json:"namespace"`
	Facts     []Triple        `json:"facts"`
}

// Triple is one fact of a FactsRequest.
type Triple struct {
	Subject     string `json:"subject"`
	SubjectType string `json:"subject_type,omitempty"`
	Predicate   string `json:"predicate"`
	Object      string `json:"object"`
	ObjectType  string `json:"object_type,omitempty"`
	// Fact is the sentence stating it; derived from the triple when empty.
	Fact string `json:"fact,omitempty"`
	// ValidAt and InvalidAt bound its world-time validity (RFC 3339 or a date).
	ValidAt    string         `json:"valid_at,omitempty"`
	InvalidAt  string         `json:"invalid_at,omitempty"`
	Confidence float64        `json:"confidence,omitempty"`
	Importance int            `json:"importance,omitempty"`
	EpisodeIDs []string       `json:"episode_ids,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// SearchRequest is the body of POST /v1/search.
type SearchRequest struct {
	Namespace kgmem.Namespace `json:"namespace"`
	Query     string          `json:"query"`
	Limit     int             `json:"limit,omitempty"`
	// Include lists the kinds to return ("facts", "entities", "episodes").
	Include        []string `json:"include,omitempty"`
	IncludeHistory bool     `json:"include_history,omitempty"`
	// IncludeForgotten also returns soft-forgotten records.
	IncludeForgotten bool `json:"include_forgotten,omitempty"`
	// AsOf answers as of a past instant (RFC 3339 or a date).
	AsOf string `json:"as_of,omitempty"`
	// Reinforce records the results as recalled (default true).
	Reinforce *bool `json:"reinforce,omitempty"`
	// Recipe names the search recipe (default: the namespace's, else the
	// server's).
	Recipe string `json:"recipe,omitempty"`
}

// RefsRequest names records of one namespace: the body of /v1/feedback,
// /v1/pins, /v1/restore and /v1/strength.
type RefsRequest struct {
	Namespace kgmem.Namespace `json:"namespace"`
	Refs      []Ref           `json:"refs"`
	// Pinned is read by /v1/pins only: true pins, false unpins (default true).
	Pinned *bool `json:"pinned,omitempty"`
}

// Settings is the body of GET and PUT /v1/namespaces/{namespace}/settings.
type Settings struct {
	Schema *kgmem.Schema     `json:"schema,omitempty"`
	Writes kgmem.WritePolicy `json:"writes"`
	// Decay holds the forgetting-curve parameters (decay.Params as JSON);
	// on PUT, absent keeps the current ones.
	Decay json.RawMessage `json:"decay,omitempty"`
	// Cardinality overrides the built-in cardinality table per predicate.
	Cardinality map[string]kgmem.Cardinality `json:"cardinality,omitempty"`
	// SearchRecipe names the search recipe of the namespace's searches that
	// name none (empty: the server's).
	SearchRecipe string `json:"search_recipe,omitempty"`
}

// Health is the body of /healthz and /readyz.
type Health struct {
	Status string `json:"status"`
	// VectorOutbox (readyz only) counts vector writes queued for retry: the
	// vector index lags the graph by this many records.
	VectorOutbox *int `json:"vector_outbox,omitempty"`
	// Components (readyz only) is the state of each backend, by name
	// ("graph", "vector_index").
	Components map[string]Component `json:"components,omitempty"`
}

// Component is the state of one backend on /readyz.
type Component struct {
	// Status is "ok", "unavailable" or "rebuilding".
	Status string `json:"status"`
	// Error says what is wrong, naming the backend (absent when ok).
	Error string `json:"error,omitempty"`
}

// NamespaceList is the body of GET /v1/namespaces.
type NamespaceList struct {
	// Namespaces are those holding records or settings that the key may read.
	Namespaces []kgmem.Namespace `json:"namespaces"`
	// Prefixes are the key's namespace prefixes (absent for the admin key and
	// on an open server, which cover every namespace).
	Prefixes []kgmem.Namespace `json:"prefixes,omitempty"`
}

// EpisodeList is the body of GET /v1/episodes.
type EpisodeList struct {
	Episodes []kgmem.Episode `json:"episodes"`
	// Next is the cursor for the next page ("after"), empty on the last page
	// and when ids were given.
	Next string `json:"next,omitempty"`
}

// EntityList is the body of GET /v1/entities.
type EntityList struct {
	Entities []kgmem.Entity `json:"entities"`
	// Next is the cursor for the next page ("after"), empty on the last page.
	Next string `json:"next,omitempty"`
}

// FactList is the body of GET /v1/facts.
type FactList struct {
	Facts []FactView `json:"facts"`
	// Next is the cursor for the next page ("after"), empty on the last page.
	Next string `json:"next,omitempty"`
}

// JobList is the body of GET /v1/jobs.
type JobList struct {
	Jobs []Job `json:"jobs"`
}

// StrengthList is the body of POST /v1/strength.
type StrengthList struct {
	Records []Strength `json:"records"`
}

// PurgeResult is the body of DELETE /v1/namespaces/{namespace}.
type PurgeResult struct {
	Namespace kgmem.Namespace  `json:"namespace"`
	Deleted   kgmem.PurgeStats `json:"deleted"`
}

// FeedbackResult is the body of POST /v1/feedback.
type FeedbackResult struct {
	// Reinforced counts the records queued for reinforcement.
	Reinforced int `json:"reinforced"`
}

// PinResult is the body of POST /v1/pins.
type PinResult struct {
	Pinned  bool `json:"pinned"`
	Records int  `json:"records"`
}

// RestoreResult is the body of POST /v1/restore.
type RestoreResult struct {
	Restored int `json:"restored"`
}

// ItemRequest is the body of PUT /v1/items.
type ItemRequest struct {
	Namespace kgmem.Namespace `json:"namespace"`
	Key       string          `json:"key"`
	// Value is a JSON object, stored as given.
	Value json.RawMessage `json:"value"`
	// Index says what of the value search indexes: absent or null the whole
	// value, false nothing, a list those fields (kgmem.ItemText).
	Index *ItemIndex `json:"index,omitempty"`
	// Extract turns the item's text into facts with the configured LLM, the
	// item as their provenance; rewriting or deleting the item later
	// updates them.
	Extract bool `json:"extract,omitempty"`
	// TTL is the item's time to live in minutes, as LangGraph's stores
	// take it: it expires that long after this put, or after a read that
	// refreshes it (0 expires it at once); absent or null, never.
	TTL *float64 `json:"ttl,omitempty"`
}

// ItemPutResult is the body of PUT /v1/items: the item as stored, and what
// the put did to facts.
type ItemPutResult struct {
	kgmem.Item
	// Facts reports each change to facts: extracted from the item's text,
	// or updated because the item no longer states them.
	Facts    []kgmem.FactChange `json:"facts"`
	Usage    kgmem.LLMUsage     `json:"usage"`
	Warnings []string           `json:"warnings"`
}

// ItemIndex is the "index" member of an ItemRequest: false (Off) or a list
// of field paths.
type ItemIndex struct {
	// Off indexes nothing: the item is stored, listed and filtered, never ranked.
	Off bool
	// Fields are the value's fields to index ("content", "profile.name", "tags[*]").
	Fields []string
}

// Fields returns the index fields an ItemIndex selects for the engine: nil
// (the whole value) for a nil index, empty for Off.
func (x *ItemIndex) fields() []string {
	switch {
	case x == nil:
		return nil
	case x.Off:
		return []string{}
	}
	return append([]string{}, x.Fields...)
}

// IndexFields is what PUT /v1/items indexes for this request: nil for the
// whole value, an empty slice for nothing, or the listed fields.
func (r ItemRequest) IndexFields() []string { return r.Index.fields() }

// MarshalJSON writes false or the list of fields.
func (x ItemIndex) MarshalJSON() ([]byte, error) {
	if x.Off {
		return []byte("false"), nil
	}
	return json.Marshal(append([]string{}, x.Fields...))
}

// UnmarshalJSON reads false or a list of fields; true is refused (LangGraph's
// index is False, a list, or absent).
func (x *ItemIndex) UnmarshalJSON(b []byte) error {
	if string(b) == "false" {
		*x = ItemIndex{Off: true}
		return nil
	}
	var fields []string
	if err := json.Unmarshal(b, &fields); err != nil {
		return kgmem.Invalidf("index", "must be false, null or a list of field paths")
	}
	*x = ItemIndex{Fields: fields}
	return nil
}

// ItemSearchRequest is the body of POST /v1/items/search.
type ItemSearchRequest struct {
	// NamespacePrefix selects the items of this namespace and of every
	// namespace below it.
	NamespacePrefix kgmem.Namespace `json:"namespace_prefix"`
	// Query ranks the items; empty lists them, most recently updated first.
	Query string `json:"query,omitempty"`
	// Filter keeps the items whose values match (kgmem.ItemFilter).
	Filter json.RawMessage `json:"filter,omitempty"`
	// Limit (default 10) and Offset page through the results.
	Limit  int `json:"limit,omitempty"`
	Offset int `json:"offset,omitempty"`
	// Reinforce records the ranked items returned as recalled (default true).
	Reinforce *bool `json:"reinforce,omitempty"`
	// RefreshTTL extends the expiry of the items returned that have a TTL
	// to their TTL from now (default true, as LangGraph's refresh_ttl).
	RefreshTTL *bool `json:"refresh_ttl,omitempty"`
	// IncludeExpired also returns the items whose TTL ran out that the
	// sweeper has not deleted yet (LangGraph's omit_expired false).
	IncludeExpired bool `json:"include_expired,omitempty"`
}

// ItemList is the body of POST /v1/items/search.
type ItemList struct {
	// Items are ranked items first (with a score), then unranked ones
	// (score null), most recently updated first.
	Items []ItemResult `json:"items"`
	// Warnings report degraded retrieval.
	Warnings []string `json:"warnings"`
}

// ItemNamespaceList is the body of GET /v1/items/namespaces.
type ItemNamespaceList struct {
	// Namespaces hold at least one item and may be read by the key.
	Namespaces []kgmem.Namespace `json:"namespaces"`
}

// MaxItemBatchOps bounds the operations of one POST /v1/items/batch.
const MaxItemBatchOps = 1000

// Item batch operation kinds (ItemOp.Op).
const (
	ItemOpPut    = "put"
	ItemOpGet    = "get"
	ItemOpDelete = "delete"
	ItemOpSearch = "search"
)

// ItemBatchRequest is the body of POST /v1/items/batch: up to
// MaxItemBatchOps item operations, run in order.
type ItemBatchRequest struct {
	Ops []ItemOp `json:"ops"`
}

// ItemOp is one operation of an item batch. Op is "put" (Namespace, Key,
// Value, Index, Extract, TTL, as PUT /v1/items), "get" (Namespace, Key,
// RefreshTTL, IncludeExpired, as GET /v1/items), "delete" (Namespace,
// Key) or "search" (NamespacePrefix, Query, Filter, Limit, Offset,
// Reinforce, RefreshTTL, IncludeExpired, as POST /v1/items/search).
type ItemOp struct {
	Op              string          `json:"op"`
	Namespace       kgmem.Namespace `json:"namespace,omitempty"`
	Key             string          `json:"key,omitempty"`
	Value           json.RawMessage `json:"value,omitempty"`
	Index           *ItemIndex      `json:"index,omitempty"`
	Extract         bool            `json:"extract,omitempty"`
	NamespacePrefix kgmem.Namespace `json:"namespace_prefix,omitempty"`
	Query           string          `json:"query,omitempty"`
	Filter          json.RawMessage `json:"filter,omitempty"`
	Limit           int             `json:"limit,omitempty"`
	Offset          int             `json:"offset,omitempty"`
	Reinforce       *bool           `json:"reinforce,omitempty"`
	TTL             *float64        `json:"ttl,omitempty"`
	RefreshTTL      *bool           `json:"refresh_ttl,omitempty"`
	IncludeExpired  bool            `json:"include_expired,omitempty"`
}

// ItemBatchResult is the body of POST /v1/items/batch: one result per
// operation, in the order of the request.
type ItemBatchResult struct {
	Results []ItemOpResult `json:"results"`
}

// ItemOpResult is the outcome of one operation of an item batch: Status is
// the status its own route would answer (put 201 or 200, get 200, delete
// 204, search 200; 404 for a get or delete of a missing key, or the 4xx of
// an operation that failed). Item is the item put or got, Items the search
// results; Error the problem of a failed operation.
type ItemOpResult struct {
	Status   int                `json:"status"`
	Item     *kgmem.Item        `json:"item,omitempty"`
	Items    *[]ItemResult      `json:"items,omitempty"`
	Facts    []kgmem.FactChange `json:"facts,omitempty"`
	Warnings []string           `json:"warnings,omitempty"`
	Error    *ItemOpError       `json:"error,omitempty"`
}

// ItemOpError is the problem of a failed batch operation (the members of
// an RFC 9457 problem detail; Field names the operation's field, as
// "ops[3].key").
type ItemOpError struct {
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Field  string `json:"field,omitempty"`
}
