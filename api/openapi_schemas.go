package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/triples"
)

// schemaComponent is one schema of openapi.json's components: a wire type, or a
// schema stated by hand (Schema) or derived from the others (Derive).
type schemaComponent struct {
	Name string
	Type reflect.Type
	// Request schemas are strict (no member they do not list) and their
	// optional members may be null; the others describe answers.
	Request bool
	// Omit drops members of the type from the schema (a member only one
	// route reads: RefsRequest's pinned).
	Omit []string
	// Required replaces the members inferred as required (those without
	// omitempty); an empty, non-nil list requires none.
	Required []string
	// Variant schemas describe a type another component already names
	// (PinRequest: the RefsRequest of POST /v1/pins, pinned included);
	// only a route's RequestSchema names them.
	Variant     bool
	Description string
	Schema      func() map[string]any
	Derive      func(done map[string]any) (map[string]any, error)
}

// components lists every component schema of openapi.json.
func components() []schemaComponent {
	return []schemaComponent{
		{Name: "Problem", Type: typ[Problem]()},
		{Name: "Namespace", Schema: namespaceSchema},
		{Name: "Cardinality", Schema: cardinalitySchema},
		{Name: "Health", Type: typ[wire.Health]()},
		{Name: "Component", Type: typ[wire.Component]()},

		{Name: "MemoriesRequest", Type: typ[wire.MemoriesRequest](), Request: true},
		{Name: "Message", Type: typ[wire.Message](), Request: true},
		{Name: "Schema", Type: typ[kgmem.Schema](), Request: true},
		{Name: "TypeDef", Type: typ[kgmem.TypeDef](), Request: true},
		{Name: "FactsRequest", Type: typ[wire.FactsRequest](), Request: true},
		{Name: "Triple", Type: typ[wire.Triple](), Request: true},
		{Name: "SearchRequest", Type: typ[wire.SearchRequest](), Request: true},
		{Name: "Ref", Type: typ[wire.Ref](), Request: true},
		{Name: "RefsRequest", Type: typ[wire.RefsRequest](), Request: true, Omit: []string{"pinned"}},
		{Name: "PinRequest", Type: typ[wire.RefsRequest](), Request: true, Variant: true},
		{Name: "Settings", Type: typ[wire.Settings](), Request: true, Required: []string{}},
		{Name: "WritePolicy", Type: typ[kgmem.WritePolicy](), Request: true},
		{Name: "DecayParams", Type: typ[decay.Params](), Request: true, Required: []string{}, Description: "Forgetting-curve parameters; see README 'Forgetting curve'"},
		{Name: "ItemRequest", Type: typ[wire.ItemRequest](), Request: true},
		{Name: "ItemSearchRequest", Type: typ[wire.ItemSearchRequest](), Request: true},
		{Name: "ItemBatchRequest", Type: typ[wire.ItemBatchRequest](), Request: true},
		{Name: "ItemOp", Type: typ[wire.ItemOp](), Schema: itemOpSchema},
		{Name: "ItemPutOp", Derive: itemOp("ItemRequest", "put", "Upserts an item, as PUT /v1/items")},
		{Name: "ItemGetOp", Derive: itemOp("ItemRequest", "get", "Reads an item, as GET /v1/items; a missing key is status 404", "namespace", "key")},
		{Name: "ItemDeleteOp", Derive: itemOp("ItemRequest", "delete", "Deletes an item, as DELETE /v1/items; a missing key is status 404", "namespace", "key")},
		{Name: "ItemSearchOp", Derive: itemOp("ItemSearchRequest", "search", "Searches items, as POST /v1/items/search")},

		{Name: "DecayState", Type: typ[kgmem.DecayState]()},
		{Name: "Episode", Type: typ[kgmem.Episode]()},
		{Name: "EpisodeStatus", Type: typ[wire.EpisodeStatus]()},
		{Name: "Fact", Type: typ[kgmem.Fact]()},
		{Name: "FactView", Type: typ[wire.FactView]()},
		{Name: "FactChange", Type: typ[kgmem.FactChange]()},
		{Name: "LLMUsage", Type: typ[kgmem.LLMUsage]()},
		{Name: "IngestResult", Type: typ[wire.IngestResult]()},
		{Name: "AddFactsResult", Type: typ[wire.AddFactsResult]()},
		{Name: "FactList", Type: typ[wire.FactList]()},
		{Name: "Entity", Type: typ[kgmem.Entity]()},
		{Name: "EntityList", Type: typ[wire.EntityList]()},
		{Name: "EpisodeList", Type: typ[wire.EpisodeList]()},
		{Name: "Score", Type: typ[wire.Score]()},
		{Name: "SourceScore", Type: typ[wire.SourceScore]()},
		{Name: "PriorScore", Type: typ[wire.PriorScore]()},
		{Name: "SearchResult", Type: typ[wire.SearchResult]()},
		{Name: "FactResult", Type: typ[wire.FactResult]()},
		{Name: "EpisodeResult", Type: typ[wire.EpisodeResult]()},
		{Name: "EntityResult", Type: typ[wire.EntityResult]()},
		{Name: "ResultGraph", Type: typ[wire.ResultGraph](), Description: "Entity subgraph of the returned facts and entities, ready to draw: each returned fact is an edge from subject to object."},
		{Name: "GraphNode", Type: typ[wire.GraphNode]()},
		{Name: "GraphEdge", Type: typ[wire.GraphEdge]()},
		{Name: "PurgeResult", Type: typ[wire.PurgeResult]()},
		{Name: "PurgeStats", Type: typ[kgmem.PurgeStats]()},
		{Name: "FeedbackResult", Type: typ[wire.FeedbackResult]()},
		{Name: "PinResult", Type: typ[wire.PinResult]()},
		{Name: "RestoreResult", Type: typ[wire.RestoreResult]()},
		{Name: "SweepStats", Type: typ[wire.SweepStats]()},
		{Name: "SweepCounts", Type: typ[wire.SweepCounts]()},
		{Name: "Job", Type: typ[wire.Job]()},
		{Name: "JobProgress", Type: typ[wire.JobProgress]()},
		{Name: "JobList", Type: typ[wire.JobList]()},
		{Name: "NamespaceList", Type: typ[wire.NamespaceList]()},
		{Name: "Strength", Type: typ[wire.Strength]()},
		{Name: "CurvePoint", Type: typ[wire.CurvePoint]()},
		{Name: "StrengthList", Type: typ[wire.StrengthList]()},
		{Name: "Item", Type: typ[kgmem.Item](), Description: "A JSON document addressed by (namespace, key): overwritten by a put of the same key, deletable, searchable like every record."},
		{Name: "ItemPutResult", Type: typ[wire.ItemPutResult]()},
		{Name: "ItemResult", Type: typ[wire.ItemResult]()},
		{Name: "ItemList", Type: typ[wire.ItemList]()},
		{Name: "ItemNamespaceList", Type: typ[wire.ItemNamespaceList]()},
		{Name: "ItemOpError", Type: typ[wire.ItemOpError](), Description: "The problem of a failed operation"},
		{Name: "ItemOpResult", Type: typ[wire.ItemOpResult](), Description: "One operation's outcome: the status its own route would answer (put 201 or 200, get 200, delete 204, search 200; 404 for a get or delete of a missing key; another 4xx with error)"},
		{Name: "ItemBatchResult", Type: typ[wire.ItemBatchResult]()},
	}
}

// scalarSchemas are the schemas of the wire's named scalar types, inlined
// where they are used: enums from the Go constants, times as RFC 3339.
func scalarSchemas() map[reflect.Type]*jsonschema.Schema {
	enum := func(vals ...any) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Enum: vals} }
	return map[reflect.Type]*jsonschema.Schema{
		typ[time.Time]():        {Type: "string", Format: "date-time"},
		typ[json.RawMessage]():  {},
		typ[kgmem.Kind]():       enum(kgmem.KindFact, kgmem.KindEntity, kgmem.KindEpisode, kgmem.KindItem),
		typ[kgmem.FactStatus](): enum(kgmem.FactCurrent, kgmem.FactUpcoming, kgmem.FactEnded, kgmem.FactInvalidated),
		typ[kgmem.JobStatus]():  enum(kgmem.JobQueued, kgmem.JobRunning, kgmem.JobSucceeded, kgmem.JobFailed),
		typ[wire.ItemIndex]():   {OneOf: []*jsonschema.Schema{{Type: "boolean", Enum: []any{false}}, {Type: "array", MaxItems: jsonschema.Ptr(32), Items: &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1)}}}},
	}
}

// namespaceSchema states kgmem.ParseNamespace's rule.
func namespaceSchema() map[string]any {
	const seg = `(?:[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}|\.[A-Za-z0-9_-][A-Za-z0-9_.-]{0,62}|\.\.[A-Za-z0-9_.-]{1,62})`
	return map[string]any{
		"type":        "string",
		"pattern":     "^" + seg + "(?:/" + seg + "){0,7}$",
		"description": "1 to 8 segments separated by '/', each 1-64 of A-Z a-z 0-9 _ . - and neither '.' nor '..'",
		"example":     "acme/users/u42",
	}
}

// cardinalitySchema lists kgmem's cardinalities.
func cardinalitySchema() map[string]any {
	return map[string]any{
		"type":        "string",
		"enum":        []any{kgmem.CardinalityMany, kgmem.CardinalityOneObject, kgmem.CardinalityOneSubject, kgmem.CardinalityOneEach},
		"description": "How many values a relation holds at one time; overrides the built-in table (relation types only)",
	}
}

// timestampSchema is a time a request gives as RFC 3339 or a date.
func timestampSchema() map[string]any {
	return map[string]any{
		"type":        "string",
		"description": "RFC 3339 (2024-03-01T09:30:00Z) or a date (2024-03-01); empty or null: none",
		"anyOf":       []any{map[string]any{"format": "date-time"}, map[string]any{"format": "date"}, map[string]any{"maxLength": 0}},
	}
}

// itemKeySchema is an item's key.
func itemKeySchema() map[string]any {
	return map[string]any{
		"type": "string", "minLength": 1, "maxLength": kgmem.MaxItemKeyBytes, "pattern": `^[^\u0000]+$`,
		"description": fmt.Sprintf("The item's key within its namespace: 1-%d bytes of UTF-8, no NUL", kgmem.MaxItemKeyBytes),
	}
}

// itemOpSchema is one operation of an item batch, by its "op".
func itemOpSchema() map[string]any {
	mapping := map[string]any{}
	var oneOf []any
	for _, op := range []string{"Put", "Get", "Delete", "Search"} {
		oneOf = append(oneOf, refSchema("Item"+op+"Op"))
	}
	for op, name := range map[string]string{wire.ItemOpPut: "ItemPutOp", wire.ItemOpGet: "ItemGetOp", wire.ItemOpDelete: "ItemDeleteOp", wire.ItemOpSearch: "ItemSearchOp"} {
		mapping[op] = "#/components/schemas/" + name
	}
	return map[string]any{"description": "One operation of an item batch", "oneOf": oneOf, "discriminator": map[string]any{"propertyName": "op", "mapping": mapping}}
}

// itemOp derives the schema of a batch operation from the route body it
// mirrors (from), keeping the members only (all when none is named).
func itemOp(from, op, description string, only ...string) func(map[string]any) (map[string]any, error) {
	return func(done map[string]any) (map[string]any, error) {
		raw, err := json.Marshal(done[from])
		if err != nil {
			return nil, err
		}
		var s map[string]any
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		props := s["properties"].(map[string]any)
		required, _ := s["required"].([]any)
		if only != nil {
			for name := range props {
				if !slices.Contains(only, name) {
					delete(props, name)
				}
			}
			required = []any{}
			for _, name := range only {
				required = append(required, name)
			}
		}
		props["op"] = map[string]any{"type": "string", "enum": []any{op}}
		s["required"] = append([]any{"op"}, required...)
		s["description"] = description
		return s, nil
	}
}

// propertyOverrides completes the inferred schemas, by "Component.member":
// a JSON object whose members are set on the member's schema (null removes
// one). It holds what Go types cannot say: bounds, formats, defaults and
// the descriptions of the document. An entry of a type applies as well to
// the components that embed it (Item's to ItemResult).
func propertyOverrides() map[string]string {
	metadata := fmt.Sprintf(`{"description":"Free-form JSON object, at most %[1]d levels deep (the object itself is level 1) and %[2]d KiB (%[3]s bytes) as compact JSON; 422 naming the field beyond","x-max-depth":%[1]d,"x-max-encoded-bytes":%[4]d}`,
		kgmem.MaxMetadataDepth, kgmem.MaxMetadataBytes>>10, thousands(kgmem.MaxMetadataBytes), kgmem.MaxMetadataBytes)
	recipes, err := json.Marshal(recipeNames())
	if err != nil {
		panic(err) // a list of strings always encodes
	}
	key, err := json.Marshal(itemKeySchema())
	if err != nil {
		panic(err)
	}
	return map[string]string{
		"Message.metadata": metadata,
		"Triple.metadata":  metadata,
		"Triple.fact":      fmt.Sprintf(`{"description":"One-sentence fact text, at most %s characters (422 naming the field beyond)","maxLength":%d}`, thousands(triples.MaxFactTextLen), triples.MaxFactTextLen),
		"ItemRequest.value": fmt.Sprintf(`{"type":"object","description":"Any JSON object, at most %[1]d levels deep and %[2]d KiB (%[3]s bytes) as compact JSON; 422 naming the field beyond","x-max-depth":%[1]d,"x-max-encoded-bytes":%[4]d}`,
			kgmem.MaxMetadataDepth, kgmem.MaxItemValueBytes>>10, thousands(kgmem.MaxItemValueBytes), kgmem.MaxItemValueBytes),
		"ItemRequest.key":                    string(key),
		"SearchRequest.recipe":               `{"enum":` + string(recipes) + `,"description":"Search recipe: default (every retriever), messages, facts, direct (no expansion around hits), keyword (BM25 alone), semantic (vector recall alone); absent: the namespace's, else the server's"}`,
		"Settings.search_recipe":             `{"enum":` + string(recipes) + `,"description":"The search recipe of this namespace's searches that name none; absent: the server's"}`,
		"Problem.field":                      `{"description":"JSON path of the offending field"}`,
		"Health.vector_outbox":               `{"minimum":0,"description":"readyz only: vector writes that failed after their graph write and are queued for retry (the vector index lags the graph by this many records)"}`,
		"Message.id":                         `{"description":"Client message id; (namespace, thread_id, id) makes re-posting idempotent","maxLength":256}`,
		"Message.role":                       `{"enum":["user","assistant","system","tool",null],"default":"user"}`,
		"Message.name":                       `{"description":"Speaker name","maxLength":256}`,
		"Message.content":                    `{"minLength":1,"description":"At most 32 KiB of UTF-8","maxLength":32768}`,
		"Message.timestamp":                  `{"description":"RFC 3339 (2024-03-01T09:30:00Z) or a date (2024-03-01); empty or null: none","anyOf":[{"format":"date-time"},{"format":"date"},{"maxLength":0}]}`,
		"TypeDef.name":                       `{"minLength":1,"maxLength":256}`,
		"TypeDef.attributes":                 `{"description":"JSON Schema of the attributes"}`,
		"TypeDef.cardinality":                `{"description":"Relation types only; empty or null: the built-in table decides","anyOf":[{"$ref":"#/components/schemas/Cardinality"},{"type":"string","maxLength":0}]}`,
		"MemoriesRequest.thread_id":          `{"maxLength":256}`,
		"MemoriesRequest.messages":           `{"maxItems":1000,"minItems":1}`,
		"MemoriesRequest.extract":            `{"default":false,"description":"Extract triples with the configured LLM"}`,
		"MemoriesRequest.mode":               `{"enum":["sync","async",null],"default":"sync","description":"sync answers when stored; async answers 202 with a background job (GET /v1/jobs/{id}). Messages of one thread arriving within the server's debounce window are coalesced into one extraction."}`,
		"EpisodeStatus.created":              `{"description":"false: it was already stored"}`,
		"FactChange.op":                      `{"enum":["added","duplicate","updated","invalidated","skipped"]}`,
		"IngestResult.job_id":                `{"description":"Set when extraction could not finish within the request: the messages are stored and searchable, and this background job (GET /v1/jobs/{id}) extracts their facts."}`,
		"Triple.subject":                     `{"minLength":1,"maxLength":256}`,
		"Triple.subject_type":                `{"maxLength":256}`,
		"Triple.predicate":                   `{"minLength":1,"maxLength":256}`,
		"Triple.object":                      `{"minLength":1,"maxLength":256}`,
		"Triple.object_type":                 `{"maxLength":256}`,
		"Triple.valid_at":                    `{"description":"RFC 3339 (2024-03-01T09:30:00Z) or a date (2024-03-01); empty or null: none","anyOf":[{"format":"date-time"},{"format":"date"},{"maxLength":0}]}`,
		"Triple.invalid_at":                  `{"description":"RFC 3339 (2024-03-01T09:30:00Z) or a date (2024-03-01); empty or null: none","anyOf":[{"format":"date-time"},{"format":"date"},{"maxLength":0}]}`,
		"Triple.confidence":                  `{"minimum":0,"maximum":1}`,
		"Triple.importance":                  `{"minimum":0,"maximum":10}`,
		"Triple.episode_ids":                 `{"description":"Ids of stored messages of the namespace the fact was drawn from (an unknown id: 404)","items":{"type":"string","minLength":1}}`,
		"FactsRequest.facts":                 `{"maxItems":1000,"minItems":1}`,
		"SourceScore.retriever":              `{"enum":["vector","bm25","thread","speaker","graph","rerank"]}`,
		"SourceScore.contribution":           `{"description":"What this retriever added to relevance: in the fusion its weight / (rrf_k + rank), for speaker its bonus; absent for rerank"}`,
		"Score.final":                        `{"description":"relevance * decay_weight * the factors of priors"}`,
		"Score.retention":                    `{"description":"Forgetting-curve retention R in [0,1]"}`,
		"Score.decay_weight":                 `{"description":"floor + (1-floor)*R"}`,
		"Score.priors":                       `{"description":"Priors that weighed the result down (currency: not true now, for a question about the present; time: outside the time the question names; when: states no time, for a when-question)"}`,
		"PriorScore.prior":                   `{"enum":["currency","time","when"]}`,
		"PriorScore.factor":                  `{"description":"multiplies the final score, in (0, 1]"}`,
		"SearchRequest.query":                `{"minLength":1,"maxLength":4096}`,
		"SearchRequest.limit":                `{"default":10,"minimum":0,"description":"Results per kind, 1-100; 0 or absent: 10","maximum":100}`,
		"SearchRequest.include":              `{"items":{"type":"string","enum":["facts","episodes","entities","items"]}}`,
		"SearchRequest.include_history":      `{"default":false}`,
		"SearchRequest.include_forgotten":    `{"default":false,"description":"Also return soft-forgotten records"}`,
		"SearchRequest.as_of":                `{"description":"RFC 3339 (2024-03-01T09:30:00Z) or a date (2024-03-01); empty or null: none","anyOf":[{"format":"date-time"},{"format":"date"},{"maxLength":0}]}`,
		"SearchRequest.reinforce":            `{"default":true,"description":"Record the results as recalled (strengthens them)"}`,
		"SearchResult.context":               `{"description":"Prompt-ready block with dates"}`,
		"SearchResult.warnings":              `{"description":"Degraded retrieval: a retriever failed or missed its deadline; the others answered"}`,
		"Ref.id":                             `{"minLength":1}`,
		"RefsRequest.refs":                   `{"maxItems":1000,"minItems":1}`,
		"DecayParams.base_stability_days":    `{"minimum":0,"exclusiveMinimum":true}`,
		"DecayParams.importance_growth":      `{"minimum":1}`,
		"DecayParams.curve_exponent":         `{"minimum":0,"maximum":5,"exclusiveMinimum":true}`,
		"DecayParams.growth":                 `{"minimum":0}`,
		"DecayParams.spacing_bonus":          `{"minimum":0,"maximum":20}`,
		"DecayParams.massed_window_minutes":  `{"minimum":0}`,
		"DecayParams.max_stability_days":     `{"minimum":0,"description":"At least base_stability_days (else 422)","exclusiveMinimum":true}`,
		"DecayParams.floor":                  `{"minimum":0,"maximum":1}`,
		"DecayParams.forget_threshold":       `{"minimum":0,"maximum":1}`,
		"DecayParams.evergreen_importance":   `{"minimum":0,"description":"0: off","maximum":10}`,
		"DecayParams.default_importance":     `{"minimum":1,"maximum":10}`,
		"Settings.writes":                    `{"allOf":[{"$ref":"#/components/schemas/WritePolicy"}]}`,
		"Settings.decay":                     `{"allOf":[{"$ref":"#/components/schemas/DecayParams"}],"description":"Forgetting-curve parameters; absent or null on PUT: the defaults"}`,
		"Settings.cardinality":               `{"description":"Per-predicate overrides of the built-in cardinality table, any spelling as key","additionalProperties":{"$ref":"#/components/schemas/Cardinality"}}`,
		"Job.result":                         `{"description":"Once succeeded: what the synchronous call returns (this job's episodes; facts and usage of the extraction shared with coalesced jobs)."}`,
		"Job.coalesced_with":                 `{"description":"Other jobs of the thread run in the same engine call."}`,
		"NamespaceList.prefixes":             `{"description":"The stored key's namespace prefixes; absent for the admin key and on an open server"}`,
		"EpisodeList.next":                   `{"description":"Cursor for the next page; absent on the last page and when ids were given"}`,
		"Strength.retention":                 `{"minimum":0,"description":"R now (1 when pinned, evergreen or decay is off)","maximum":1}`,
		"Strength.weight":                    `{"description":"Search weight: floor + (1 − floor)·R"}`,
		"Strength.stability_days":            `{"description":"S: the age at which R falls to 0.9"}`,
		"Strength.age_days":                  `{"description":"Days since the last reinforcement"}`,
		"Strength.pinned":                    `{"description":"Pinned or evergreen: never decays"}`,
		"Strength.due":                       `{"description":"The next sweep will soft-forget it"}`,
		"Strength.forget_after_days":         `{"description":"Age at which R falls below the forget threshold (absent when it never does)"}`,
		"Strength.curve":                     `{"description":"R sampled at ages from 0 to 3650 days since the last reinforcement"}`,
		"Item.value":                         `{"type":"object"}`,
		"Item.text":                          `{"description":"What search indexes (the index fields' text); empty: listed, never ranked"}`,
		"Item.fact_ids":                      `{"description":"The facts extracted from the item (their episodes name the item's id)"}`,
		"ItemRequest.index":                  `{"description":"What search indexes: absent or null the whole value, false nothing, or these field paths ('content', 'profile.name', 'tags[*]', 'list[0]')"}`,
		"ItemRequest.ttl":                    fmt.Sprintf(`{"minimum":0,"maximum":%d,"description":"Time to live in minutes, as LangGraph's stores take it: the item expires this long after the put, or after a read that refreshes it (0 expires it at once); absent or null: never. Expired items are hidden from reads and deleted by the TTL sweeper"}`, kgmem.MaxItemTTL),
		"ItemRequest.extract":                `{"default":false,"description":"Turn the item's text into facts with the configured LLM (409 when none is), the item as their provenance; rewriting or deleting the item later updates them"}`,
		"ItemSearchRequest.namespace_prefix": `{"description":"The items of this namespace and of every namespace below it; the key must cover the whole prefix"}`,
		"ItemSearchRequest.query":            `{"description":"Ranks the items (BM25 + vector, decay-weighted); empty or absent: list, most recently updated first","maxLength":4096}`,
		"ItemSearchRequest.filter":           `{"type":"object","description":"Members of the value: a JSON value (equality) or an object of operators $eq, $ne, $gt, $gte, $lt, $lte","additionalProperties":true}`,
		"ItemSearchRequest.limit":            `{"default":10,"minimum":0,"description":"1-100; 0 or absent: 10","maximum":100}`,
		"ItemSearchRequest.offset":           `{"default":0,"minimum":0,"maximum":100000}`,
		"ItemSearchRequest.reinforce":        `{"default":true,"description":"Record the ranked items returned as recalled"}`,
		"ItemResult.score":                   `{"description":"null for an item listed without being ranked"}`,
		"ItemBatchRequest.ops":               `{"maxItems":1000,"description":"Run in order; every operation is checked before any runs (400 naming ops[i].field), and the key must allow each one's namespace (403 naming ops[i].namespace): write for put and delete, read for get, read over the whole prefix for search","minItems":0}`,
		"ItemOpError.field":                  `{"description":"The operation's field, as ops[3].key"}`,
		"ItemOpResult.items":                 `{"description":"A search's results"}`,
		"ItemBatchResult.results":            `{"description":"One per operation, in order"}`,
		"Health.components":                  `{"description":"readyz only: the state of each backend, by name (graph, vector_index). status is ready when all are ok, degraded while the vector index is unavailable (writes queue in the outbox, searches use the other retrievers) or rebuilding after it lost its collection"}`,
		"PinRequest.pinned":                  `{"default":true}`,
		"Component.status":                   `{"enum":["ok","unavailable","rebuilding"]}`,
		"Fact.subject_type":                  `{"description":"The subject entity's type (Person, Place…); omitted when it has none."}`,
		"Fact.object_type":                   `{"description":"The object entity's type; omitted when it has none."}`,
		"FactView.status":                    `{"description":"current: true now and still believed; upcoming: valid_at after now; ended: invalid_at at or before now, never contradicted; invalidated: contradicted (expired_at set), kept as history"}`,
		"FactResult.provenance":              `{"description":"The most recent episodes the fact was drawn from (at most 3)"}`,
		"GraphEdge.id":                       `{"description":"The fact's id"}`,
		"GraphEdge.source":                   `{"description":"Subject entity id"}`,
		"GraphEdge.target":                   `{"description":"Object entity id"}`,
	}
}

// recipeNames lists the engine's search recipes.
func recipeNames() []string {
	var names []string
	for _, r := range memory.Recipes() {
		names = append(names, r.Name)
	}
	return names
}

// thousands writes n with commas: 16,384.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
