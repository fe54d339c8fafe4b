package api

import (
	"net/http"
	"reflect"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/auth"
	"github.com/labstack/echo/v4"
)

// route is one row of the route table: everything the server, its access
// policy and its OpenAPI document know of one route. Echo's registration
// (Server.routes), the authorisation policy (Server.policy) and
// api/openapi.json (go generate; TestOpenAPIIsCurrent) all derive from it.
type route struct {
	Method, Path string
	// OperationID names the operation in openapi.json (and the clients'
	// route checks).
	OperationID string
	Summary     string
	// Description is the operation's longer text (optional).
	Description string
	// Access is who may call the route and where its namespace comes from.
	Access access
	// Handler answers the route.
	Handler func(*Server, echo.Context) error
	// Query lists the query parameters (path parameters come from Path).
	Query []param
	// Request is the body's wire type (nil: no body); RequestSchema names
	// its component when it is not the type's name (PinRequest).
	Request       reflect.Type
	RequestSchema string
	// Responses are the answers that are not errors.
	Responses []response
	// Errors are the route's own error statuses besides the ones every
	// route of its kind has (documentedErrors), with what they mean.
	Errors map[int]string
	// Optional routes are registered only when their handler is configured
	// (POST /mcp) and are not part of the REST document.
	Optional func(Options) bool
}

// param is a query parameter of a route.
type param struct {
	Name        string
	Required    bool
	Description string
	// Schema is the parameter's JSON Schema (OpenAPI 3.0 dialect).
	Schema map[string]any
	// Repeated parameters are arrays sent as ?name=a&name=b.
	Repeated bool
}

// response is a success answer of a route.
type response struct {
	Status      int
	Description string
	// Body is the wire type of the body (nil: no body, unless ContentType
	// says otherwise).
	Body reflect.Type
	// ContentType is the body's media type when it is not a JSON wire type
	// (the metrics text, the OpenAPI document).
	ContentType string
	// Links are OpenAPI links to follow from this answer, by name.
	Links map[string]any
	// Headers are the answer's documented headers, by name.
	Headers map[string]any
}

// typ is reflect.TypeFor, short for the table below.
func typ[T any]() reflect.Type { return reflect.TypeFor[T]() }

// Query parameters shared by routes.
var (
	qNamespace = param{Name: "namespace", Required: true, Schema: refSchema("Namespace"),
		Description: "Namespace: 1-8 segments of [A-Za-z0-9_.-], 1-64 chars each, separated by /"}
	qAfter = param{Name: "after", Schema: map[string]any{"type": "string"}, Description: "Cursor: the `next` of the previous page"}
	qPage  = param{Name: "limit", Schema: map[string]any{"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}}
	qKey   = param{Name: "key", Required: true, Schema: itemKeySchema()}
	// qRefreshTTL and qIncludeExpired are an item read's TTL parameters.
	qRefreshTTL = param{Name: "refresh_ttl", Schema: map[string]any{"type": "boolean", "default": true},
		Description: "Extend the expiry of each item returned that has a TTL to its TTL from now (LangGraph's refresh_ttl); an expired item is never refreshed"}
	qIncludeExpired = param{Name: "include_expired", Schema: map[string]any{"type": "boolean", "default": false},
		Description: "Also return the item when its TTL ran out and the sweeper has not deleted it yet (LangGraph's omit_expired false)"}
)

// Error descriptions shared by routes.
const (
	errUnprocessable = "Well formed, but breaks a rule the schema cannot state (invalid_at before valid_at, a name of format characters only, a predicate over 64 bytes in canonical form, a byte limit met by fewer characters, the zero time, a name declared twice); nothing changed"
	errItemRule      = "Well formed, but breaks a rule the schema cannot state (a key over 1024 bytes in fewer characters, an index field or filter operator that does not parse, a prefix spanning more than 1000 namespaces or 100000 items); nothing changed"
	errNoLLM         = "Extraction asked of a server without an LLM"
	errNotInNS       = "Not found in this namespace"
	errNoRecord      = "A named record does not exist in this namespace"
	errNoItem        = "No item with this key in this namespace"
)

// routeTable is every route of the server, in the order echo registers them.
// Adding a route is a row here, its handler and the engine method it calls
// (docs/contributing).
func routeTable() []route {
	return []route{
		{Method: http.MethodGet, Path: "/healthz", OperationID: "healthz", Summary: "Liveness",
			Access: access{public: true}, Handler: (*Server).healthz,
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.Health]()}}},
		{Method: http.MethodGet, Path: "/readyz", OperationID: "readyz", Summary: "Readiness: every backend reachable",
			Access: access{public: true}, Handler: (*Server).readyz,
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.Health]()}},
			Errors:    map[int]string{503: "A backend is unreachable"}},
		{Method: http.MethodGet, Path: "/openapi.json", OperationID: "openapi", Summary: "This document",
			Access: access{public: true}, Handler: (*Server).openAPI,
			Responses: []response{{Status: 200, Description: "OpenAPI 3 document", ContentType: echo.MIMEApplicationJSON}}},
		{Method: http.MethodGet, Path: "/metrics", OperationID: "metrics", Summary: "Prometheus metrics: ingested messages, fact changes by op, LLM calls and tokens, searches",
			Access: access{right: auth.Admin, ns: nsNone}, Handler: (*Server).serveMetrics,
			Responses: []response{{Status: 200, Description: "Prometheus text format", ContentType: echo.MIMETextPlain}}},

		{Method: http.MethodPost, Path: "/v1/memories", OperationID: "addMemories", Summary: "Add messages as episodes (optionally extracting facts)",
			Access: access{right: auth.Write, ns: nsBody}, Handler: (*Server).postMemories, Request: typ[wire.MemoriesRequest](),
			Responses: []response{
				{Status: 201, Description: "At least one new episode stored", Body: typ[wire.IngestResult](), Links: linksToEpisodes()},
				{Status: 200, Description: "Every message was already stored (idempotent re-post)", Body: typ[wire.IngestResult](), Links: linksToEpisodes()},
				{Status: 202, Description: "mode async: the job was accepted; Location is its status URL", Body: typ[wire.Job](),
					Headers: map[string]any{"Location": map[string]any{"schema": map[string]any{"type": "string"}, "description": "/v1/jobs/{id}?namespace=…"}},
					Links:   map[string]any{"GetJob": link("getJob", "id", "$response.body#/id", "namespace", "$request.body#/namespace")}},
			},
			Errors: map[int]string{409: errNoLLM, 422: "Well formed, but breaks a rule the schema cannot state (invalid_at before valid_at, a name of format characters only, a predicate over 64 bytes in canonical form, a byte limit met by fewer characters, the zero time, a name declared twice), a message's metadata nested deeper than 32 levels or over 16 KiB as compact JSON; nothing changed"}},
		{Method: http.MethodGet, Path: "/v1/jobs", OperationID: "listJobs", Summary: "The latest background ingest jobs of a namespace, newest first",
			Access: access{right: auth.Read, ns: nsQuery}, Handler: (*Server).listJobs,
			Query:     []param{qNamespace, {Name: "limit", Schema: map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "default": 20}}},
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.JobList]()}}},
		{Method: http.MethodGet, Path: "/v1/jobs/:id", OperationID: "getJob", Summary: "Status, progress and result of a background ingest job",
			Access: access{right: auth.Read, ns: nsQuery}, Handler: (*Server).getJob,
			Query:     []param{{Name: "namespace", Required: true, Schema: refSchema("Namespace"), Description: "The job's namespace; a job of any other namespace is a 404."}},
			Responses: []response{{Status: 200, Description: "The job", Body: typ[wire.Job]()}},
			Errors:    map[int]string{404: "No such job in this namespace"}},

		{Method: http.MethodPost, Path: "/v1/facts", OperationID: "addFacts", Summary: "Post triples directly (bring-your-own extraction)",
			Access: access{right: auth.Write, ns: nsBody}, Handler: (*Server).postFacts, Request: typ[wire.FactsRequest](),
			Responses: []response{
				{Status: 201, Description: "At least one fact was created", Body: typ[wire.AddFactsResult](), Links: linksToFacts()},
				{Status: 200, Description: "Nothing new: every fact was already known (duplicates, restatements, skipped)", Body: typ[wire.AddFactsResult](), Links: linksToFacts()},
			},
			Errors: map[int]string{404: "A fact names a message (episode_ids) that does not exist", 422: "Well formed, but breaks a rule the schema cannot state (invalid_at before valid_at, a name of format characters only, a predicate over 64 bytes in canonical form, a byte limit met by fewer characters, the zero time, a name declared twice), a fact text over 2,000 characters, a fact's metadata nested deeper than 32 levels or over 16 KiB as compact JSON; nothing changed"}},
		{Method: http.MethodGet, Path: "/v1/facts", OperationID: "listFacts", Summary: "List facts, with history, optionally of one entity",
			Access: access{right: auth.Read, ns: nsQuery}, Handler: (*Server).listFacts,
			Query: []param{qNamespace,
				{Name: "entity", Schema: map[string]any{"type": "string"}, Description: "Entity id, name or alias"},
				{Name: "current_only", Schema: map[string]any{"type": "boolean", "default": false}, Description: "Only facts whose status is current (ended, invalidated and upcoming facts are left out)"},
				{Name: "as_of", Schema: timestampSchema(), Description: "Only facts that held at this world time (RFC 3339 or a date): valid_at (else created_at) at or before it, invalid_at unset or after it"},
				qPage, qAfter},
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.FactList](), Links: map[string]any{
				"GetListedFact":      link("getFact", "id", "$response.body#/facts/0/id", "namespace", "$request.query.namespace"),
				"DeleteListedFact":   link("deleteFact", "id", "$response.body#/facts/0/id", "namespace", "$request.query.namespace"),
				"GetListedSubject":   link("getEntity", "id", "$response.body#/facts/0/subject_id", "namespace", "$request.query.namespace"),
				"ListedSubjectFacts": link("listFacts", "entity", "$response.body#/facts/0/subject_id", "namespace", "$request.query.namespace"),
			}}},
			Errors: map[int]string{404: "Entity not found", 422: errUnprocessable}},
		{Method: http.MethodGet, Path: "/v1/facts/:id", OperationID: "getFact", Summary: "One fact, current or historical",
			Access: access{right: auth.Read, ns: nsQuery}, Handler: (*Server).getFact, Query: []param{qNamespace},
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.FactView]()}},
			Errors:    map[int]string{404: errNotInNS}},
		{Method: http.MethodDelete, Path: "/v1/facts/:id", OperationID: "deleteFact", Summary: "Hard-delete one fact",
			Access: access{right: auth.Write, ns: nsQuery}, Handler: (*Server).deleteFact, Query: []param{qNamespace},
			Responses: []response{{Status: 204, Description: "Deleted"}},
			Errors:    map[int]string{404: errNotInNS}},

		{Method: http.MethodGet, Path: "/v1/entities", OperationID: "listEntities", Summary: "List entities",
			Access: access{right: auth.Read, ns: nsQuery}, Handler: (*Server).listEntities,
			Query: []param{qNamespace,
				{Name: "q", Schema: map[string]any{"type": "string"}, Description: "Substring of a name or alias"},
				{Name: "type", Schema: map[string]any{"type": "string"}},
				qPage, qAfter,
				{Name: "id", Repeated: true, Schema: map[string]any{"type": "array", "items": map[string]any{"type": "string", "minLength": 1}},
					Description: "Entity ids (repeat the parameter, at most the page limit of 1000): those entities in this order, unknown ids left out; not with q, type or after."}},
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.EntityList](), Links: map[string]any{
				"GetEntity": link("getEntity", "id", "$response.body#/entities/0/id", "namespace", "$request.query.namespace")}}}},
		{Method: http.MethodGet, Path: "/v1/entities/:id", OperationID: "getEntity", Summary: "One entity",
			Access: access{right: auth.Read, ns: nsQuery}, Handler: (*Server).getEntity, Query: []param{qNamespace},
			Responses: []response{{Status: 200, Description: "OK", Body: typ[kgmem.Entity]()}},
			Errors:    map[int]string{404: errNotInNS}},
		{Method: http.MethodGet, Path: "/v1/episodes", OperationID: "listEpisodes", Summary: "List episodes (messages), or the ones named by id",
			Access: access{right: auth.Read, ns: nsQuery}, Handler: (*Server).listEpisodes,
			Query: []param{qNamespace,
				{Name: "id", Repeated: true, Schema: map[string]any{"type": "array", "items": map[string]any{"type": "string", "minLength": 1}},
					Description: "Episode ids (repeat the parameter, at most the page limit of 1000): those episodes in this order, unknown ids left out. Without it, a page of all episodes in id order."},
				qPage, qAfter},
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.EpisodeList]()}}},

		{Method: http.MethodPost, Path: "/v1/search", OperationID: "search", Summary: "Hybrid search: vector recall + BM25, fused by reciprocal rank",
			Access: access{right: auth.Read, ns: nsBody}, Handler: (*Server).postSearch, Request: typ[wire.SearchRequest](),
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.SearchResult]()}},
			Errors:    map[int]string{422: errUnprocessable}},
		{Method: http.MethodPost, Path: "/v1/feedback", OperationID: "feedback", Summary: "Confirm results were used: reinforces them",
			Access: access{right: auth.Write, ns: nsBody}, Handler: (*Server).postFeedback, Request: typ[wire.RefsRequest](),
			Responses: []response{{Status: 202, Description: "Recorded; applied in the background, durably", Body: typ[wire.FeedbackResult]()}},
			Errors:    map[int]string{404: errNoRecord, 409: "Reinforcement not configured", 422: errUnprocessable}},
		{Method: http.MethodPost, Path: "/v1/pins", OperationID: "pin", Summary: "Pin (never decays) or unpin records",
			Access: access{right: auth.Write, ns: nsBody}, Handler: (*Server).postPins, Request: typ[wire.RefsRequest](), RequestSchema: "PinRequest",
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.PinResult]()}},
			Errors:    map[int]string{404: errNoRecord, 422: errUnprocessable}},
		{Method: http.MethodPost, Path: "/v1/restore", OperationID: "restore", Summary: "Restore soft-forgotten records",
			Access: access{right: auth.Write, ns: nsBody}, Handler: (*Server).postRestore, Request: typ[wire.RefsRequest](),
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.RestoreResult]()}},
			Errors:    map[int]string{404: errNoRecord, 422: errUnprocessable}},
		{Method: http.MethodPost, Path: "/v1/strength", OperationID: "strength", Summary: "How strongly records are held now, and their forgetting curves (reads only)",
			Description: "For each record named: retention now, the search weight it gives, stability, age since the last reinforcement, whether it is pinned (or evergreen) and whether the next sweep forgets it, the stored decay state, and retention sampled along its forgetting curve. Nothing is reinforced or written.",
			Access:      access{right: auth.Read, ns: nsBody}, Handler: (*Server).postStrength, Request: typ[wire.RefsRequest](),
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.StrengthList]()}},
			Errors:    map[int]string{404: errNoRecord, 422: errUnprocessable}},

		{Method: http.MethodGet, Path: "/v1/namespaces", OperationID: "listNamespaces", Summary: "Namespaces that hold records or settings and that the key may read",
			Description: "Lists, sorted, every namespace with at least one record or settings that the request's key covers with the read right (every one for the admin key and on an open server). A stored key's own prefixes come along in `prefixes`, so a client can offer a namespace that holds nothing yet.",
			Access:      access{right: auth.Read, ns: nsKeyScope}, Handler: (*Server).listNamespaces,
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.NamespaceList]()}}},
		{Method: http.MethodDelete, Path: "/v1/namespaces/:namespace", OperationID: "purgeNamespace", Summary: "Purge everything in a namespace",
			Access: access{right: auth.Admin, ns: nsPath}, Handler: (*Server).purgeNamespace,
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.PurgeResult]()}}},
		{Method: http.MethodGet, Path: "/v1/namespaces/:namespace/settings", OperationID: "getSettings", Summary: "Namespace settings (schema, write switches, effective decay parameters)",
			Access: access{right: auth.Read, ns: nsPath}, Handler: (*Server).getSettings,
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.Settings]()}}},
		{Method: http.MethodPut, Path: "/v1/namespaces/:namespace/settings", OperationID: "putSettings", Summary: "Replace namespace settings; decay parameters are merged over defaults and validated",
			Access: access{right: auth.Write, ns: nsPath}, Handler: (*Server).putSettings, Request: typ[wire.Settings](),
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.Settings]()}},
			Errors:    map[int]string{422: errUnprocessable}},
		{Method: http.MethodPost, Path: "/v1/namespaces/:namespace/sweep", OperationID: "sweep", Summary: "Soft-forget records whose retention fell below the threshold (never deletes)",
			Access: access{right: auth.Write, ns: nsPath}, Handler: (*Server).postSweep,
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.SweepStats]()}}},

		{Method: http.MethodPut, Path: "/v1/items", OperationID: "putItem", Summary: "Put an item (upsert by key)",
			Description: "Creates the item (201) or overwrites it (200): value and index replaced, created_at kept, the overwrite counted as a restatement by the forgetting curve. Its text is embedded and indexed for search.",
			Access:      access{right: auth.Write, ns: nsBody}, Handler: (*Server).putItem, Request: typ[wire.ItemRequest](),
			Responses: []response{
				{Status: 200, Description: "Overwritten", Body: typ[wire.ItemPutResult]()},
				{Status: 201, Description: "Created", Body: typ[wire.ItemPutResult]()},
			},
			Errors: map[int]string{409: errNoLLM, 422: "Well formed, but breaks a rule the schema cannot state (a key over 1024 bytes in fewer characters, an index field or filter operator that does not parse, a prefix spanning more than 1000 namespaces or 100000 items), a value nested deeper than 32 levels or over 64 KiB as compact JSON; nothing changed"}},
		{Method: http.MethodGet, Path: "/v1/items", OperationID: "getItem", Summary: "One item by key",
			Access: access{right: auth.Read, ns: nsQuery}, Handler: (*Server).getItem, Query: []param{qNamespace, qKey, qRefreshTTL, qIncludeExpired},
			Responses: []response{{Status: 200, Description: "OK", Body: typ[kgmem.Item]()}},
			Errors:    map[int]string{404: errNoItem, 422: errItemRule}},
		{Method: http.MethodDelete, Path: "/v1/items", OperationID: "deleteItem", Summary: "Delete one item by key",
			Access: access{right: auth.Write, ns: nsQuery}, Handler: (*Server).deleteItem, Query: []param{qNamespace, qKey},
			Responses: []response{{Status: 204, Description: "Deleted"}},
			Errors:    map[int]string{404: errNoItem, 422: errItemRule}},
		{Method: http.MethodPost, Path: "/v1/items/search", OperationID: "searchItems", Summary: "Search items by namespace prefix",
			Description: "With a query, the items it ranks come first (best first, with a score), then the other items that match the filter (score null), most recently updated first; without a query every matching item is listed that way. Spans the prefix and every namespace below it.",
			Access:      access{right: auth.Read, ns: nsBodyPrefix}, Handler: (*Server).searchItems, Request: typ[wire.ItemSearchRequest](),
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.ItemList]()}},
			Errors:    map[int]string{422: errItemRule}},
		{Method: http.MethodPost, Path: "/v1/items/batch", OperationID: "batchItems", Summary: "Run item operations in one request",
			Description: "Up to 1,000 put, get, delete and search operations on items, run in order, each answered on its own (a missing key is that operation's 404, not the batch's). A malformed operation refuses the whole batch before anything runs (400 naming ops[i]); an operation whose namespace the key may not use refuses it too (403). A backend failure ends the batch with its 5xx (operations before it may have run; puts and deletes are idempotent).",
			Access:      access{right: auth.Read, ns: nsBodyOps}, Handler: (*Server).batchItems, Request: typ[wire.ItemBatchRequest](),
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.ItemBatchResult]()}},
			Errors:    map[int]string{422: errItemRule}},
		{Method: http.MethodGet, Path: "/v1/items/namespaces", OperationID: "listItemNamespaces", Summary: "Namespaces holding items that the key may read",
			Access: access{right: auth.Read, ns: nsKeyScope}, Handler: (*Server).listItemNamespaces,
			Query: []param{{Name: "prefix", Schema: refSchema("Namespace"), Description: "Only this namespace and those below it"},
				{Name: "include_expired", Schema: map[string]any{"type": "boolean", "default": false}, Description: "Also list the namespaces whose items all expired and await the sweeper"}},
			Responses: []response{{Status: 200, Description: "OK", Body: typ[wire.ItemNamespaceList]()}}},

		{Method: http.MethodPost, Path: "/mcp", OperationID: "mcp", Summary: "The MCP streamable HTTP endpoint",
			Access: access{right: auth.Read, ns: nsCalls}, Handler: (*Server).serveMCP,
			Optional: func(o Options) bool { return o.MCP != nil }},
	}
}

// link is an OpenAPI link to operation op with the parameters given as
// name, expression pairs.
func link(op string, nameExpr ...string) map[string]any {
	params := map[string]any{}
	for i := 0; i+1 < len(nameExpr); i += 2 {
		params[nameExpr[i]] = nameExpr[i+1]
	}
	return map[string]any{"operationId": op, "parameters": params}
}

// linksToEpisodes follows an ingest to the episodes it stored.
func linksToEpisodes() map[string]any {
	return map[string]any{"ListEpisodes": link("listEpisodes", "id", "$response.body#/episodes/0/id", "namespace", "$request.body#/namespace")}
}

// linksToFacts follows posted facts to the namespace's list.
func linksToFacts() map[string]any {
	l := link("listFacts", "namespace", "$request.body#/namespace")
	l["description"] = "The namespace's facts, with those just posted"
	return map[string]any{"ListFacts": l}
}

// serveMetrics answers GET /metrics in the Prometheus text format.
func (s *Server) serveMetrics(c echo.Context) error {
	s.promHandler.ServeHTTP(c.Response(), c.Request())
	return nil
}

// serveMCP answers POST /mcp with the configured MCP handler.
func (s *Server) serveMCP(c echo.Context) error {
	s.opts.MCP.ServeHTTP(c.Response(), c.Request())
	return nil
}

// routes registers every row of the route table that is configured, and
// records each one's access policy for authenticate and authorize.
func (s *Server) routes() {
	for _, r := range routeTable() {
		if r.Optional != nil && !r.Optional(s.opts) {
			continue
		}
		s.echo.Add(r.Method, r.Path, func(c echo.Context) error { return r.Handler(s, c) })
		s.policy[r.Method+" "+r.Path] = r.Access
	}
}

// policyOf returns the access policy of "METHOD path": its row's, or, for
// a route registered outside the route table, admin only (fail closed);
// known is false for a route the server does not serve (its 404 or 405
// touches nothing).
func (s *Server) policyOf(route string) (pol access, known bool) {
	if pol, ok := s.policy[route]; ok {
		return pol, true
	}
	for _, r := range s.echo.Routes() {
		if r.Method+" "+r.Path == route {
			return access{right: auth.Admin, ns: nsNone}, true
		}
	}
	return access{}, false
}
