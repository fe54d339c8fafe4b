package kgmem

import (
	"context"
	"encoding/json"
	"time"
)

// GraphStore is the source of truth: entities, facts (with history), episodes,
// the mentions between them and items, plus full-text search. Every method is scoped to one
// namespace; no method ever reads or writes another namespace's records.
//
// Implementations: graph/sqlite (embedded default) and graph/neo4j. Both pass the
// conformance suite in graph/graphtest.
type GraphStore interface {
	// Apply writes one ChangeSet atomically: all of it or nothing.
	Apply(ctx context.Context, cs ChangeSet) error

	// Episodes returns the episodes with the given ids, in the order of ids;
	// ids that do not exist in ns are left out.
	Episodes(ctx context.Context, ns Namespace, ids []string) ([]Episode, error)
	// EpisodeSpeakers returns the speaker (Name) of each episode of ids, in
	// the order of ids ("" for one ns does not hold), when the store can
	// tell without reading the episodes, and known false when it cannot. A
	// search asks it before loading its episode candidates: its speaker
	// bonus reaches only those said by someone the query names.
	EpisodeSpeakers(ctx context.Context, ns Namespace, ids []string) (names []string, known bool, err error)
	// ListEpisodes pages through the episodes of ns in id order.
	ListEpisodes(ctx context.Context, ns Namespace, page Page) ([]Episode, error)
	// LatestTime returns the latest instant ns records: the greatest episode
	// timestamp or fact validity bound (valid_at or invalid_at, of expired
	// facts too), which relative time expressions ("last year") resolve
	// against; the zero time when ns records none.
	LatestTime(ctx context.Context, ns Namespace) (time.Time, error)

	// Items returns the items with the given ids, in the order of ids; ids
	// that do not exist in ns are left out.
	Items(ctx context.Context, ns Namespace, ids []string) ([]Item, error)
	// ListItems pages through the items of ns in id order.
	ListItems(ctx context.Context, ns Namespace, page Page) ([]Item, error)
	// DeleteItem hard-deletes one item; ErrNotFound when absent.
	DeleteItem(ctx context.Context, ns Namespace, id string) error
	// ItemNamespaces lists, sorted, the namespaces that hold at least one
	// item and are prefix or below it (segment by segment: "a" covers
	// "a/b", not "ab"); an empty prefix lists them all. When liveAt is not
	// zero, only the namespaces holding an item not expired at liveAt.
	ItemNamespaces(ctx context.Context, prefix Namespace, liveAt time.Time) ([]Namespace, error)
	// ExpiredItems lists the ids of up to limit items of ns that expired
	// at or before at, soonest expired first.
	ExpiredItems(ctx context.Context, ns Namespace, at time.Time, limit int) ([]string, error)
	// RefreshItems sets the expiry of the items of ns that are still live
	// at at (an expiry after it); the others, expired or missing, are left
	// alone, so a refresh never revives an expired item.
	RefreshItems(ctx context.Context, ns Namespace, expiries []ItemExpiry, at time.Time) error

	// Entity returns one entity, or an error wrapping ErrNotFound.
	Entity(ctx context.Context, ns Namespace, id string) (Entity, error)
	// Entities returns the entities with the given ids, in the order of ids;
	// missing ids are left out.
	Entities(ctx context.Context, ns Namespace, ids []string) ([]Entity, error)
	// FindEntities lists entities of ns matching the filter in id order.
	FindEntities(ctx context.Context, ns Namespace, filter EntityFilter) ([]Entity, error)

	// Fact returns one fact (current or historical), or an error wrapping ErrNotFound.
	Fact(ctx context.Context, ns Namespace, id string) (Fact, error)
	// Facts returns the facts with the given ids, in the order of ids; missing ids are left out.
	Facts(ctx context.Context, ns Namespace, ids []string) ([]Fact, error)
	// ListFacts lists facts of ns matching the filter in id order.
	ListFacts(ctx context.Context, ns Namespace, filter FactFilter) ([]Fact, error)

	// SearchText runs full-text (BM25) search over fact text, episode content,
	// entity names and aliases and item text, best first. Scores are positive, higher is better.
	SearchText(ctx context.Context, ns Namespace, q TextQuery) ([]Hit, error)
	// Neighborhood returns the entities and facts within q.Depth hops of the seed
	// entities, visiting at most q.FanOut facts per entity.
	Neighborhood(ctx context.Context, ns Namespace, q NeighborhoodQuery) (Subgraph, error)
	// WalkFacts is Neighborhood with FactsOnly for a caller that scores the
	// facts a walk reaches and keeps none of them (graph expansion): it calls
	// visit once per fact reached, in id order, instead of returning them. A
	// store walking in memory hands each fact without making a Fact of it
	// (VisitSubgraph is the walk of any other).
	WalkFacts(ctx context.Context, ns Namespace, q NeighborhoodQuery, visit func(WalkedFact)) error
	// ThreadNeighbors returns, for each episode of q.IDs, the ids of the
	// episodes up to q.Window places before and after it in its thread (see ThreadNeighbor
	// for the order). Unknown ids are left out.
	ThreadNeighbors(ctx context.Context, ns Namespace, q ThreadNeighborsQuery) ([]ThreadNeighbor, error)

	// SetDecay overwrites the decay state of the given records.
	SetDecay(ctx context.Context, ns Namespace, updates []DecayUpdate) error
	// DeleteFact hard-deletes one fact; ErrNotFound when absent.
	DeleteFact(ctx context.Context, ns Namespace, id string) error
	// PurgeNamespace hard-deletes everything in ns (settings included) and reports how much.
	PurgeNamespace(ctx context.Context, ns Namespace) (PurgeStats, error)

	// Namespaces lists every namespace that holds at least one record or settings, sorted.
	Namespaces(ctx context.Context) ([]Namespace, error)
	// Settings returns the settings of ns (the zero value when none were stored).
	Settings(ctx context.Context, ns Namespace) (NamespaceSettings, error)
	// PutSettings replaces the settings of ns.
	PutSettings(ctx context.Context, ns Namespace, s NamespaceSettings) error

	// Ping checks the backend is reachable.
	Ping(ctx context.Context) error
	// Close releases the store.
	Close() error
}

// Page selects a slice of an id-ordered listing: records with id > After, at
// most Limit (0: the store's default of 100).
type Page struct {
	After string
	Limit int
}

// EntityFilter selects entities. Zero fields do not filter.
type EntityFilter struct {
	// Names matches entities whose normalised name or any normalised alias equals
	// NormalizeName of one of these.
	Names []string
	// Query matches entities whose name or alias contains it, case-insensitively.
	Query string
	// Type keeps only entities of this type.
	Type string
	// After and Limit page through the result in id order (Limit 0: 100).
	Page
}

// FactFilter selects facts. Zero fields do not filter.
type FactFilter struct {
	// EntityID keeps facts whose subject or object is this entity.
	EntityID string
	// OtherID, with EntityID, keeps only the facts between the two entities,
	// in either direction. It is invalid without EntityID.
	OtherID string
	// Predicate keeps facts with this predicate.
	Predicate string
	// IncludeExpired also returns invalidated (historical) facts.
	IncludeExpired bool
	// After and Limit page through the result in id order (Limit 0: 100).
	Page
}

// Validate rejects a filter no store can answer: OtherID without EntityID.
func (f FactFilter) Validate() error {
	if f.OtherID != "" && f.EntityID == "" {
		return Invalidf("other_id", "needs entity_id")
	}
	return nil
}

// TextQuery is a full-text search.
type TextQuery struct {
	Text string
	// Kinds restricts the search (empty: all kinds).
	Kinds []Kind
	// IncludeExpired also searches invalidated facts.
	IncludeExpired bool
	// Limit bounds the hits (a store's default when 0).
	Limit int
	// LimitEach applies Limit to each kind searched rather than to all of
	// them together: the best Limit of every kind, best first overall, as
	// one search per kind would find them, in one call (one round trip to a
	// remote store instead of one per kind).
	LimitEach bool
}

// Hit is one search result from a single retriever: a record and its score.
type Hit struct {
	Kind  Kind    `json:"kind"`
	ID    string  `json:"id"`
	Score float64 `json:"score"`
}

// NeighborhoodQuery is a bounded traversal from seed entities.
type NeighborhoodQuery struct {
	Seeds []string
	// Depth in hops (1 = facts touching a seed).
	Depth int
	// FanOut caps the facts followed from any one entity, so hubs stay cheap.
	FanOut int
	// IncludeExpired also traverses invalidated facts.
	IncludeExpired bool
	// FactsOnly asks for the shape of the walk only, for callers that score
	// paths and load the few records they show themselves (graph expansion):
	// Subgraph.Entities is left empty (Distance is still complete), and a
	// store may return each fact with its graph fields only (ID, Namespace,
	// SubjectID, Predicate, ObjectID, Confidence, Importance and the four
	// instants), leaving text, names, episodes, attributes and decay empty.
	FactsOnly bool
}

// ThreadNeighborsQuery asks for the episodes around some episodes in their threads.
type ThreadNeighborsQuery struct {
	IDs []string
	// Window is how many episodes to take on each side (0 means 1, at most 10).
	Window int
}

// ThreadNeighbor is an episode near another one in the same thread. A
// thread is ordered by timestamp, then by the order the episodes were stored
// in (the order of a ChangeSet's Episodes, then later change sets after
// earlier ones).
type ThreadNeighbor struct {
	// Of is the id of the episode asked about.
	Of string
	// Offset is the neighbour's place relative to Of: -1 just before, 1 just after.
	Offset int
	// ID is the neighbour's id. Only ids come back: the thread retriever
	// ranks by place, and the few episodes a search shows are loaded once,
	// at the end (loading every neighbour was a fifth of a loaded server's
	// CPU).
	ID string
	// Role and OfRole are the roles of the neighbour and of the episode
	// asked about, when RolesKnown: a store that reads them with the
	// thread order (graph/neo4j) spares the thread retriever, which never
	// walks to or from an assistant's turn, a read of the episodes.
	Role, OfRole string
	RolesKnown   bool
}

// MaxThreadWindow bounds ThreadNeighborsQuery.Window.
const MaxThreadWindow = 10

// Subgraph is the result of a traversal.
type Subgraph struct {
	Entities []Entity
	Facts    []Fact
	// Distance maps each entity id to its hop count from the nearest seed (seeds: 0).
	Distance map[string]int
}

// WalkedFact is a fact a walk reached (GraphStore.WalkFacts), with the hop
// count from the nearest seed to each of its ends.
type WalkedFact struct {
	// Fact holds the graph fields (NeighborhoodQuery.FactsOnly). It is valid
	// only during the visit: the store may reuse it for the next fact.
	Fact                            *Fact
	SubjectDistance, ObjectDistance int
}

// DecayUpdate sets the decay state of one record.
type DecayUpdate struct {
	Kind  Kind
	ID    string
	State DecayState
}

// PurgeStats counts what a purge removed.
type PurgeStats struct {
	Episodes int `json:"episodes"`
	Entities int `json:"entities"`
	Facts    int `json:"facts"`
	Items    int `json:"items"`
}

// NamespaceSettings are the per-namespace options, stored with the graph.
type NamespaceSettings struct {
	// Schema constrains extraction to declared entity and relation types.
	Schema *Schema `json:"schema,omitempty"`
	// Writes switches kinds of graph changes off, like the peers' insert/update/delete toggles.
	Writes WritePolicy `json:"writes"`
	// Decay holds the decay package's parameters as JSON; that package owns the shape.
	Decay json.RawMessage `json:"decay,omitempty"`
	// Cardinality overrides the built-in cardinality table per predicate
	// ("drives": "one_object", "works_at": "many"); it wins over a schema
	// relation type's cardinality. Keys are predicates in any spelling.
	Cardinality map[string]Cardinality `json:"cardinality,omitempty"`
	// SearchRecipe names the search recipe the namespace's searches use
	// when a request names none (empty: the server's default).
	SearchRecipe string `json:"search_recipe,omitempty"`
}

// WritePolicy says which changes ingestion may make. The zero value allows all.
type WritePolicy struct {
	// DisableInserts stops new facts from being added.
	DisableInserts bool `json:"disable_inserts,omitempty"`
	// DisableUpdates stops existing facts from being rewritten.
	DisableUpdates bool `json:"disable_updates,omitempty"`
	// DisableInvalidations stops contradicted facts from being invalidated.
	DisableInvalidations bool `json:"disable_invalidations,omitempty"`
}
