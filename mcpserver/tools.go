package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/triples"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools, as the model sees them: names, titles and descriptions saying
// when to call each and what it returns.
var (
	toolAddMemories = toolSpec{name: "add_memories", title: "Remember messages",
		description: "Store what was said so it can be recalled later. Pass one `text` (and optionally its `speaker`) or a list of `messages`. " +
			"Messages are kept verbatim in a conversation thread (`thread_id`, default \"mcp\"); with extraction on, kgmem also turns them into facts " +
			"and retires facts they contradict. Returns how many messages were new and the fact changes made.",
		limits: func(in *jsonschema.Schema) {
			lengths(prop(in, "text"), 0, maxMessageChars)
			lengths(prop(in, "speaker"), 0, maxNameChars)
			count(prop(in, "messages"), 0, maxRecords)
			lengths(prop(in, "messages", "[]", "content"), 1, maxMessageChars)
			prop(in, "messages", "[]", "role").Enum = []any{"user", "assistant", "system", "tool"}
			lengths(prop(in, "messages", "[]", "speaker"), 0, maxNameChars)
			lengths(prop(in, "messages", "[]", "id"), 0, maxNameChars)
			lengths(prop(in, "thread_id"), 0, maxNameChars)
		}}
	toolSearchMemory = toolSpec{name: "search_memory", title: "Search memory", readOnly: true,
		description: "Recall what is known that is relevant to `query`: facts (with whether each is current, ended or invalidated, and when it held), " +
			"entities and the messages they came from. Call it before answering anything that depends on earlier conversations. " +
			"Returns a prompt-ready context first; `as_of` (a date) answers as of a past time, `include_history` also returns facts no longer true. " +
			"It only reads: to make what proved useful fade more slowly, pass those records to confirm_memory.",
		limits: func(in *jsonschema.Schema) {
			lengths(prop(in, "query"), 1, maxQueryChars)
			within(prop(in, "limit"), 1, maxSearchLimit)
			for _, r := range memory.Recipes() {
				prop(in, "recipe").Enum = append(prop(in, "recipe").Enum, r.Name)
			}
		}}
	toolAddFacts = toolSpec{name: "add_facts", title: "Add facts",
		description: "Record facts you already know as triples (`subject`, `predicate`, `object`, optionally `valid_at`/`invalid_at` dates and the " +
			"sentence `fact`). A fact that contradicts a current one (a new employer, a new city) retires the old one and keeps it as history. " +
			"Returns what happened to each fact: added, duplicate, updated or invalidated.",
		limits: func(in *jsonschema.Schema) {
			count(prop(in, "facts"), 1, maxRecords)
			for _, name := range []string{"subject", "predicate", "object"} {
				lengths(prop(in, "facts", "[]", name), 1, maxNameChars)
			}
			lengths(prop(in, "facts", "[]", "fact"), 0, maxQueryChars)
		}}
	toolGetEntity = toolSpec{name: "get_entity", title: "Look up an entity", readOnly: true,
		description: "Everything known about one person, place, organisation or thing, by name, alias or id: its current facts and its history " +
			"(facts that ended or were replaced, with when they held).",
		limits: func(in *jsonschema.Schema) { lengths(prop(in, "entity"), 1, maxNameChars) }}
	toolListEntities = toolSpec{name: "list_entities", title: "List entities", readOnly: true,
		description: "Browse the entities in memory, optionally those whose name or alias matches `query` or of one `type`. Returns a page and a " +
			"cursor `next` to pass as `after` for the following page.",
		limits: func(in *jsonschema.Schema) {
			within(prop(in, "limit"), 1, maxEntityPage)
			lengths(prop(in, "type"), 0, maxNameChars)
		}}
	toolDeleteFact = toolSpec{name: "delete_fact", title: "Delete a fact", destructive: true,
		description: "Delete one fact for good, by its id (from search_memory or get_entity). Use it when the user asks you to forget something; " +
			"a fact that is merely out of date is retired by adding the new fact instead.",
		limits: func(in *jsonschema.Schema) { lengths(prop(in, "fact_id"), 1, maxNameChars) }}
	toolPinMemory = toolSpec{name: "pin_memory", title: "Pin memories",
		description: "Keep records from ever fading: pinned facts, entities or messages (by `kind` and `id`) stay at full strength.", limits: refLimits}
	toolUnpinMemory = toolSpec{name: "unpin_memory", title: "Unpin memories",
		description: "Let pinned records fade again on the forgetting curve.", limits: refLimits}
	toolConfirmMemory = toolSpec{name: "confirm_memory", title: "Confirm memories were useful",
		description: "Tell kgmem which recalled records (by `kind` and `id`) were actually useful in your answer; they are reinforced and fade more slowly. " +
			"search_memory never reinforces what it returns; this tool does.", limits: refLimits}
)

// The bounds the REST API enforces on what the tools send it, declared in
// their input schemas (api/openapi.json states the same).
const (
	maxMessageChars = 32768 // a message's content
	maxNameChars    = 256   // names, predicates, ids, thread ids
	maxQueryChars   = 4096  // a search query, a fact's sentence
	maxSearchLimit  = 100   // results per kind of one search
	maxEntityPage   = 1000  // entities per page
	maxRecords      = 1000  // messages, facts or refs in one call
)

// refLimits bounds the refs of pin_memory, unpin_memory and confirm_memory.
func refLimits(in *jsonschema.Schema) {
	count(prop(in, "refs"), 1, maxRecords)
	prop(in, "refs", "[]", "kind").Enum = []any{"fact", "entity", "episode", "item"}
	lengths(prop(in, "refs", "[]", "id"), 1, maxNameChars)
}

// tools holds what every tool call needs.
type tools struct{ opts Options }

// connect returns the API client of one call and the namespace it works in.
func (t *tools) connect(req *mcp.CallToolRequest, ns string) (*client.Client, kgmem.Namespace, error) {
	var header http.Header
	if req != nil && req.Extra != nil {
		header = req.Extra.Header
	}
	c, err := t.opts.Client(header)
	if err != nil {
		return nil, "", err
	}
	if t.opts.Namespace != "" {
		return c, t.opts.Namespace, nil
	}
	return c, kgmem.Namespace(ns), nil
}

// toolError turns an API answer into the message the model reads: the
// API's own detail (with its field path) and the status.
func toolError(err error) error {
	var e *client.Error
	if errors.As(err, &e) {
		msg := e.Detail
		if msg == "" {
			msg = e.Title
		}
		if e.Field != "" && !strings.Contains(msg, e.Field) {
			msg = e.Field + ": " + msg
		}
		return fmt.Errorf("%s (%d %s)", msg, e.Status, http.StatusText(e.Status))
	}
	return err
}

// text is a tool result with one text content.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// FactOut is a fact as the tools return it.
type FactOut struct {
	ID        string `json:"id"`
	Fact      string `json:"fact"`
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	Object    string `json:"object"`
	// Status is current, upcoming, ended or invalidated.
	Status    string `json:"status"`
	ValidAt   string `json:"valid_at,omitempty"`
	InvalidAt string `json:"invalid_at,omitempty"`
}

func factOut(f wire.FactView) FactOut {
	return FactOut{ID: f.ID, Fact: f.Text, Subject: f.SubjectName, Predicate: f.Predicate, Object: f.ObjectName,
		Status: string(f.Status), ValidAt: day(f.ValidAt), InvalidAt: day(f.InvalidAt)}
}

// EntityOut is an entity as the tools return it.
type EntityOut struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Type    string   `json:"type,omitempty"`
	Aliases []string `json:"aliases,omitempty"`
	Summary string   `json:"summary,omitempty"`
}

func entityOut(e kgmem.Entity) EntityOut {
	return EntityOut{ID: e.ID, Name: e.Name, Type: e.Type, Aliases: e.Aliases, Summary: e.Summary}
}

// EpisodeOut is a stored message as the tools return it.
type EpisodeOut struct {
	ID        string `json:"id"`
	ThreadID  string `json:"thread_id,omitempty"`
	Speaker   string `json:"speaker,omitempty"`
	Content   string `json:"content"`
	Timestamp string `json:"timestamp,omitempty"`
}

func episodeOut(e kgmem.Episode) EpisodeOut {
	return EpisodeOut{ID: e.ID, ThreadID: e.ThreadID, Speaker: e.Name, Content: e.Content, Timestamp: day(e.Timestamp)}
}

// ChangeOut is what a write did to one fact.
type ChangeOut struct {
	// Op is added, duplicate, updated, invalidated or skipped.
	Op     string `json:"op"`
	Fact   string `json:"fact"`
	ID     string `json:"id,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func changesOut(cs []kgmem.FactChange) []ChangeOut {
	out := make([]ChangeOut, 0, len(cs))
	for _, c := range cs {
		out = append(out, ChangeOut{Op: string(c.Op), Fact: c.Fact.Text, ID: c.Fact.ID, Reason: c.Reason})
	}
	return out
}

// summarize counts changes by op ("2 added, 1 invalidated").
func summarize(cs []ChangeOut) string {
	var order []string
	n := map[string]int{}
	for _, c := range cs {
		if n[c.Op] == 0 {
			order = append(order, c.Op)
		}
		n[c.Op]++
	}
	parts := make([]string, 0, len(order))
	for _, op := range order {
		parts = append(parts, fmt.Sprintf("%d %s", n[op], op))
	}
	if len(parts) == 0 {
		return "no fact changes"
	}
	return strings.Join(parts, ", ")
}

// day renders a time as RFC 3339 in UTC ("" for the zero time).
func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// MessageIn is one message of add_memories.
type MessageIn struct {
	Content string `json:"content" jsonschema:"what was said"`
	Role    string `json:"role,omitempty" jsonschema:"user or assistant (default user)"`
	Speaker string `json:"speaker,omitempty" jsonschema:"the speaker's name"`
	// Timestamp is RFC 3339 or a date.
	Timestamp string `json:"timestamp,omitempty" jsonschema:"when it was said, RFC 3339 or a date (default now)"`
	ID        string `json:"id,omitempty" jsonschema:"your id for the message; re-sending the same id stores nothing new"`
}

// AddMemoriesIn is the input of add_memories.
type AddMemoriesIn struct {
	Namespace string      `json:"namespace,omitempty" jsonschema:"whose memory, for instance acme/users/alice"`
	Text      string      `json:"text,omitempty" jsonschema:"one message to remember (or use messages)"`
	Speaker   string      `json:"speaker,omitempty" jsonschema:"who said text"`
	Messages  []MessageIn `json:"messages,omitempty" jsonschema:"several messages, in order (or use text)"`
	ThreadID  string      `json:"thread_id,omitempty" jsonschema:"the conversation they belong to (default mcp)"`
	Extract   *bool       `json:"extract,omitempty" jsonschema:"turn them into facts with the server's LLM (default: on when the server has one)"`
	Async     bool        `json:"async,omitempty" jsonschema:"return at once with a job id instead of waiting for extraction"`
}

// AddMemoriesOut is the output of add_memories.
type AddMemoriesOut struct {
	// Stored counts the messages that were new; Known those already stored.
	Stored   int         `json:"stored"`
	Known    int         `json:"known"`
	Facts    []ChangeOut `json:"facts"`
	Warnings []string    `json:"warnings,omitempty"`
	// JobID is the background job of an async call.
	JobID string `json:"job_id,omitempty"`
}

func (t *tools) addMemories(ctx context.Context, req *mcp.CallToolRequest, in AddMemoriesIn) (*mcp.CallToolResult, AddMemoriesOut, error) {
	c, ns, err := t.connect(req, in.Namespace)
	if err != nil {
		return nil, AddMemoriesOut{}, err
	}
	body := wire.MemoriesRequest{Namespace: ns, ThreadID: in.ThreadID, Extract: t.opts.Extract}
	if body.ThreadID == "" {
		body.ThreadID = "mcp"
	}
	if in.Extract != nil {
		body.Extract = *in.Extract
	}
	if in.Text != "" {
		body.Messages = append(body.Messages, wire.Message{Role: "user", Name: in.Speaker, Content: in.Text})
	}
	for _, m := range in.Messages {
		role := m.Role
		if role == "" {
			role = "user"
		}
		body.Messages = append(body.Messages, wire.Message{ID: m.ID, Role: role, Name: m.Speaker, Content: m.Content, Timestamp: m.Timestamp})
	}
	if in.Async {
		job, err := c.AddMemoriesAsync(ctx, body)
		if err != nil {
			return nil, AddMemoriesOut{}, toolError(err)
		}
		return text(fmt.Sprintf("Queued %d messages as job %s.", len(body.Messages), job.ID)), AddMemoriesOut{JobID: job.ID, Facts: []ChangeOut{}}, nil
	}
	res, _, err := c.AddMemories(ctx, body)
	if err != nil {
		return nil, AddMemoriesOut{}, toolError(err)
	}
	out := AddMemoriesOut{Facts: changesOut(res.Facts), Warnings: res.Warnings}
	for _, ep := range res.Episodes {
		if ep.Created {
			out.Stored++
		} else {
			out.Known++
		}
	}
	msg := fmt.Sprintf("Stored %d new messages (%d already known); %s.", out.Stored, out.Known, summarize(out.Facts))
	for _, w := range out.Warnings {
		msg += "\nWarning: " + w
	}
	return text(msg), out, nil
}

// SearchMemoryIn is the input of search_memory.
type SearchMemoryIn struct {
	Namespace      string `json:"namespace,omitempty" jsonschema:"whose memory, for instance acme/users/alice"`
	Query          string `json:"query" jsonschema:"the question or topic, in words"`
	Limit          int    `json:"limit,omitempty" jsonschema:"results per kind (default 10)"`
	AsOf           string `json:"as_of,omitempty" jsonschema:"answer as of this past time, RFC 3339 or a date"`
	IncludeHistory bool   `json:"include_history,omitempty" jsonschema:"also return facts that are no longer true"`
	Recipe         string `json:"recipe,omitempty" jsonschema:"search recipe: default (everything), messages, facts, direct (no expansion around hits), keyword or semantic; absent: the namespace's"`
}

// SearchMemoryOut is the structured output of search_memory.
type SearchMemoryOut struct {
	// Context is the results rendered for a prompt, with dates and statuses.
	Context  string       `json:"context"`
	Facts    []FactOut    `json:"facts"`
	Entities []EntityOut  `json:"entities"`
	Episodes []EpisodeOut `json:"episodes"`
	Warnings []string     `json:"warnings,omitempty"`
}

func (t *tools) searchMemory(ctx context.Context, req *mcp.CallToolRequest, in SearchMemoryIn) (*mcp.CallToolResult, SearchMemoryOut, error) {
	c, ns, err := t.connect(req, in.Namespace)
	if err != nil {
		return nil, SearchMemoryOut{}, err
	}
	// A read-only tool (hosts approve those without asking): the search
	// records no recall; confirm_memory reinforces what proved useful.
	res, err := c.Search(ctx, wire.SearchRequest{Namespace: ns, Query: in.Query, Limit: in.Limit, AsOf: in.AsOf,
		IncludeHistory: in.IncludeHistory, Recipe: in.Recipe, Reinforce: new(bool)})
	if err != nil {
		return nil, SearchMemoryOut{}, toolError(err)
	}
	out := SearchMemoryOut{Context: res.Context, Facts: []FactOut{}, Entities: []EntityOut{}, Episodes: []EpisodeOut{}, Warnings: res.Warnings}
	for _, f := range res.Facts {
		out.Facts = append(out.Facts, factOut(f.FactView))
	}
	for _, e := range res.Entities {
		out.Entities = append(out.Entities, entityOut(e.Entity))
	}
	for _, e := range res.Episodes {
		out.Episodes = append(out.Episodes, episodeOut(e.Episode))
	}
	shown := res.Context
	if strings.TrimSpace(shown) == "" {
		shown = "Nothing in memory matches this query."
	}
	return text(shown), out, nil
}

// TripleIn is one fact of add_facts.
type TripleIn struct {
	Subject   string `json:"subject" jsonschema:"who or what the fact is about"`
	Predicate string `json:"predicate" jsonschema:"the relation, for instance works at, lives in, leads"`
	Object    string `json:"object" jsonschema:"the other side of the relation"`
	Fact      string `json:"fact,omitempty" jsonschema:"the fact as one sentence (default: made from the triple)"`
	ValidAt   string `json:"valid_at,omitempty" jsonschema:"since when it is true, RFC 3339 or a date"`
	InvalidAt string `json:"invalid_at,omitempty" jsonschema:"when it stopped being true, RFC 3339 or a date"`
}

// AddFactsIn is the input of add_facts.
type AddFactsIn struct {
	Namespace string     `json:"namespace,omitempty" jsonschema:"whose memory, for instance acme/users/alice"`
	Facts     []TripleIn `json:"facts" jsonschema:"the facts to record"`
}

// ChangesOut is the output of the tools that write facts.
type ChangesOut struct {
	Changes []ChangeOut `json:"changes"`
}

func (t *tools) addFacts(ctx context.Context, req *mcp.CallToolRequest, in AddFactsIn) (*mcp.CallToolResult, ChangesOut, error) {
	c, ns, err := t.connect(req, in.Namespace)
	if err != nil {
		return nil, ChangesOut{}, err
	}
	body := wire.FactsRequest{Namespace: ns, Facts: make([]wire.Triple, 0, len(in.Facts))}
	for _, f := range in.Facts {
		body.Facts = append(body.Facts, wire.Triple{Subject: f.Subject, Predicate: f.Predicate, Object: f.Object, Fact: f.Fact, ValidAt: f.ValidAt, InvalidAt: f.InvalidAt})
	}
	res, err := c.AddFacts(ctx, body)
	if err != nil {
		return nil, ChangesOut{}, toolError(err)
	}
	out := ChangesOut{Changes: changesOut(res.Facts)}
	lines := []string{"Fact changes: " + summarize(out.Changes) + "."}
	for _, ch := range out.Changes {
		lines = append(lines, fmt.Sprintf("- %s: %s", ch.Op, ch.Fact))
	}
	return text(strings.Join(lines, "\n")), out, nil
}

// GetEntityIn is the input of get_entity.
type GetEntityIn struct {
	Namespace string `json:"namespace,omitempty" jsonschema:"whose memory, for instance acme/users/alice"`
	Entity    string `json:"entity" jsonschema:"the entity's name, one of its aliases, or its id"`
}

// GetEntityOut is the output of get_entity.
type GetEntityOut struct {
	Entity EntityOut `json:"entity"`
	// Current are the facts true now; History those that ended, were
	// replaced, or are not yet true.
	Current []FactOut `json:"current"`
	History []FactOut `json:"history"`
}

// maxEntityFacts bounds the facts get_entity reads about one entity.
const maxEntityFacts = 500

func (t *tools) getEntity(ctx context.Context, req *mcp.CallToolRequest, in GetEntityIn) (*mcp.CallToolResult, GetEntityOut, error) {
	c, ns, err := t.connect(req, in.Namespace)
	if err != nil {
		return nil, GetEntityOut{}, err
	}
	ent, err := t.findEntity(ctx, c, ns, in.Entity)
	if err != nil {
		return nil, GetEntityOut{}, err
	}
	out := GetEntityOut{Entity: entityOut(ent), Current: []FactOut{}, History: []FactOut{}}
	n := 0
	for f, err := range c.Facts(ctx, client.FactQuery{Namespace: ns, Entity: ent.ID, Limit: 100}) {
		if err != nil {
			return nil, GetEntityOut{}, toolError(err)
		}
		if n++; n > maxEntityFacts {
			break
		}
		if f.Status == kgmem.FactCurrent {
			out.Current = append(out.Current, factOut(f))
		} else {
			out.History = append(out.History, factOut(f))
		}
	}
	lines := []string{fmt.Sprintf("%s (%s, id %s)", ent.Name, ent.Type, ent.ID), "Current:"}
	for _, f := range out.Current {
		lines = append(lines, "- "+describe(f))
	}
	lines = append(lines, "History:")
	for _, f := range out.History {
		lines = append(lines, "- "+describe(f))
	}
	return text(strings.Join(lines, "\n")), out, nil
}

// findEntity resolves a name, alias or id to one entity.
func (t *tools) findEntity(ctx context.Context, c *client.Client, ns kgmem.Namespace, name string) (kgmem.Entity, error) {
	if strings.TrimSpace(name) == "" {
		return kgmem.Entity{}, errors.New("entity: is empty; give a name, an alias or an id")
	}
	if strings.HasPrefix(name, "ent_") {
		e, err := c.GetEntity(ctx, ns, name)
		if err == nil {
			return e, nil
		}
		if !errors.Is(err, kgmem.ErrNotFound) {
			return kgmem.Entity{}, toolError(err)
		}
	}
	list, err := c.ListEntities(ctx, client.EntityQuery{Namespace: ns, Q: name, Limit: 20})
	if err != nil {
		return kgmem.Entity{}, toolError(err)
	}
	want := kgmem.NormalizeName(name)
	for _, e := range list.Entities {
		if kgmem.NormalizeName(e.Name) == want {
			return e, nil
		}
		for _, a := range e.Aliases {
			if kgmem.NormalizeName(a) == want {
				return e, nil
			}
		}
	}
	if len(list.Entities) > 0 {
		return list.Entities[0], nil
	}
	return kgmem.Entity{}, fmt.Errorf("entity: no entity named %q in namespace %q", name, ns)
}

// describe renders a fact with its status and validity for the model.
func describe(f FactOut) string {
	s := fmt.Sprintf("%s [%s", f.Fact, f.Status)
	switch {
	case f.ValidAt != "" && f.InvalidAt != "":
		s += ", " + f.ValidAt[:10] + " – " + f.InvalidAt[:10]
	case f.ValidAt != "":
		s += ", since " + f.ValidAt[:10]
	case f.InvalidAt != "":
		s += ", until " + f.InvalidAt[:10]
	}
	s += ", id " + f.ID + "]"
	return s
}

// ListEntitiesIn is the input of list_entities.
type ListEntitiesIn struct {
	Namespace string `json:"namespace,omitempty" jsonschema:"whose memory, for instance acme/users/alice"`
	Query     string `json:"query,omitempty" jsonschema:"keep entities whose name or alias matches"`
	Type      string `json:"type,omitempty" jsonschema:"keep entities of this type: Person, Organization, Team, Project, Place, Event, Object, Concept, Preference, Other, or a type your schema declared; synonyms (Location, Company, City…) mean the type they are stored as"`
	Limit     int    `json:"limit,omitempty" jsonschema:"page size (default 50)"`
	After     string `json:"after,omitempty" jsonschema:"the cursor next of the previous page"`
}

// ListEntitiesOut is the output of list_entities.
type ListEntitiesOut struct {
	Entities []EntityOut `json:"entities"`
	// Next is the cursor of the next page, empty on the last one.
	Next string `json:"next,omitempty"`
}

func (t *tools) listEntities(ctx context.Context, req *mcp.CallToolRequest, in ListEntitiesIn) (*mcp.CallToolResult, ListEntitiesOut, error) {
	c, ns, err := t.connect(req, in.Namespace)
	if err != nil {
		return nil, ListEntitiesOut{}, err
	}
	limit := in.Limit
	if limit == 0 {
		limit = 50
	}
	page, err := c.ListEntities(ctx, client.EntityQuery{Namespace: ns, Q: in.Query, Type: entityType(in.Type), Limit: limit, After: in.After})
	if err != nil {
		return nil, ListEntitiesOut{}, toolError(err)
	}
	out := ListEntitiesOut{Entities: make([]EntityOut, 0, len(page.Entities)), Next: page.Next}
	lines := make([]string, 0, len(page.Entities)+1)
	for _, e := range page.Entities {
		out.Entities = append(out.Entities, entityOut(e))
		lines = append(lines, fmt.Sprintf("- %s (%s, id %s)", e.Name, e.Type, e.ID))
	}
	if out.Next != "" {
		lines = append(lines, "More: pass after="+out.Next)
	}
	if len(lines) == 0 {
		lines = append(lines, "No entities.")
	}
	return text(strings.Join(lines, "\n")), out, nil
}

// entityType spells a type filter as writes store types: a default type or
// one of its synonyms in any case ("location", "Location" and "City" are
// stored as Place) becomes that default type, as triples.NormalizeEntityType
// does on every write; any other spelling is kept as given (a type a schema
// declared is stored as declared).
func entityType(t string) string {
	t = strings.TrimSpace(t)
	if t == "" {
		return ""
	}
	if n := triples.NormalizeEntityType(t, nil); n != kgmem.TypeOther {
		return n
	}
	return t
}

// DeleteFactIn is the input of delete_fact.
type DeleteFactIn struct {
	Namespace string `json:"namespace,omitempty" jsonschema:"whose memory, for instance acme/users/alice"`
	FactID    string `json:"fact_id" jsonschema:"the id of the fact to delete"`
}

// DeleteFactOut is the output of delete_fact.
type DeleteFactOut struct {
	Deleted string `json:"deleted"`
}

func (t *tools) deleteFact(ctx context.Context, req *mcp.CallToolRequest, in DeleteFactIn) (*mcp.CallToolResult, DeleteFactOut, error) {
	c, ns, err := t.connect(req, in.Namespace)
	if err != nil {
		return nil, DeleteFactOut{}, err
	}
	if strings.TrimSpace(in.FactID) == "" {
		return nil, DeleteFactOut{}, errors.New("fact_id: is empty")
	}
	if err := c.DeleteFact(ctx, ns, in.FactID); err != nil {
		return nil, DeleteFactOut{}, toolError(err)
	}
	return text("Deleted fact " + in.FactID + "."), DeleteFactOut{Deleted: in.FactID}, nil
}

// RefIn names one record.
type RefIn struct {
	Kind string `json:"kind" jsonschema:"fact, entity or episode"`
	ID   string `json:"id" jsonschema:"the record's id"`
}

// RefsIn is the input of pin_memory, unpin_memory and confirm_memory.
type RefsIn struct {
	Namespace string  `json:"namespace,omitempty" jsonschema:"whose memory, for instance acme/users/alice"`
	Refs      []RefIn `json:"refs" jsonschema:"the records, by kind and id (from search_memory or get_entity)"`
}

func refs(in []RefIn) []wire.Ref {
	out := make([]wire.Ref, 0, len(in))
	for _, r := range in {
		out = append(out, wire.Ref{Kind: kgmem.Kind(r.Kind), ID: r.ID})
	}
	return out
}

// PinOut is the output of pin_memory and unpin_memory.
type PinOut struct {
	Pinned  bool `json:"pinned"`
	Records int  `json:"records"`
}

func (t *tools) pin(ctx context.Context, req *mcp.CallToolRequest, in RefsIn, pinned bool) (*mcp.CallToolResult, PinOut, error) {
	c, ns, err := t.connect(req, in.Namespace)
	if err != nil {
		return nil, PinOut{}, err
	}
	res, err := c.Pin(ctx, ns, refs(in.Refs), pinned)
	if err != nil {
		return nil, PinOut{}, toolError(err)
	}
	verb := "Pinned"
	if !pinned {
		verb = "Unpinned"
	}
	return text(fmt.Sprintf("%s %d records.", verb, res.Records)), PinOut{Pinned: res.Pinned, Records: res.Records}, nil
}

func (t *tools) pinMemory(ctx context.Context, req *mcp.CallToolRequest, in RefsIn) (*mcp.CallToolResult, PinOut, error) {
	return t.pin(ctx, req, in, true)
}

func (t *tools) unpinMemory(ctx context.Context, req *mcp.CallToolRequest, in RefsIn) (*mcp.CallToolResult, PinOut, error) {
	return t.pin(ctx, req, in, false)
}

// ConfirmOut is the output of confirm_memory.
type ConfirmOut struct {
	Reinforced int `json:"reinforced"`
}

func (t *tools) confirmMemory(ctx context.Context, req *mcp.CallToolRequest, in RefsIn) (*mcp.CallToolResult, ConfirmOut, error) {
	c, ns, err := t.connect(req, in.Namespace)
	if err != nil {
		return nil, ConfirmOut{}, err
	}
	res, err := c.Feedback(ctx, ns, refs(in.Refs))
	if err != nil {
		return nil, ConfirmOut{}, toolError(err)
	}
	return text(fmt.Sprintf("Reinforced %d records.", res.Reinforced)), ConfirmOut{Reinforced: res.Reinforced}, nil
}
