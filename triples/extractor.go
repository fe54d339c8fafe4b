package triples

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
)

// MaxMessagesPerCall bounds the messages sent in one extraction call; longer
// batches are split and a failed part does not abort the others.
const MaxMessagesPerCall = 20

// MaxFactsPerMessage bounds the facts kept per message of a call, so a runaway
// answer cannot flood the graph.
const MaxFactsPerMessage = 50

// Extractor implements kgmem.Extractor over an OpenAI-compatible chat endpoint.
// It is safe for concurrent use.
type Extractor struct {
	llm *llmClient
}

var _ kgmem.Extractor = (*Extractor)(nil)

// NewExtractor returns an Extractor; a bad configuration is an error wrapping kgmem.ErrInvalid.
func NewExtractor(cfg ExtractorConfig) (*Extractor, error) {
	c, err := newLLMClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("new extractor: %w", err)
	}
	return &Extractor{llm: c}, nil
}

// Mode reports the structured-output mode currently in use (after any downgrade).
func (x *Extractor) Mode() Mode { return x.llm.currentMode() }

// Extract asks the model for the entities and facts of req.Messages, in
// calls of at most MaxMessagesPerCall messages that, with a ContextSize,
// fit the model's window (a message that cannot fit is skipped with a
// warning). Every entity and fact is validated: invalid ones are dropped
// and explained in Warnings, repaired output is noted there too. A part of
// the batch whose call fails after retries is reported in Warnings; when
// every part fails the error wraps kgmem.ErrUnavailable and the returned
// Extraction still carries the usage and warnings.
func (x *Extractor) Extract(ctx context.Context, req kgmem.ExtractRequest) (kgmem.Extraction, error) {
	var out kgmem.Extraction
	if _, err := kgmem.ParseNamespace(string(req.Namespace)); err != nil {
		return out, fmt.Errorf("extract: %w", err)
	}
	if len(req.Messages) == 0 {
		return out, nil
	}
	req, trimmed := x.fitContext(req)
	if trimmed > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("left out the %d oldest context message(s) to fit the model's context of %d tokens", trimmed, x.llm.cfg.ContextSize))
	}
	chunks, tooLong := x.split(req)
	for _, ep := range tooLong {
		out.Warnings = append(out.Warnings, fmt.Sprintf("message %s: too long for the model's context of %d tokens; no facts extracted from it (the episode is kept)", ep.ID, x.llm.cfg.ContextSize))
	}
	if len(chunks) == 0 {
		return out, nil // the warnings say why; the episodes stand.
	}
	var failures []error
	for _, chunk := range chunks {
		sub := req
		sub.Messages = chunk
		part, err := x.extractOnce(ctx, sub)
		out.Usage = out.Usage.Add(part.Usage)
		out.Warnings = append(out.Warnings, part.Warnings...)
		if err != nil {
			if ctx.Err() != nil {
				return out, fmt.Errorf("extract: %w", ctx.Err())
			}
			failures = append(failures, err)
			out.Warnings = append(out.Warnings, fmt.Sprintf("messages %s…: extraction failed: %v", chunk[0].ID, err))
			continue
		}
		out.Entities = append(out.Entities, part.Entities...)
		out.Triples = append(out.Triples, part.Triples...)
	}
	if len(failures) == len(chunks) {
		return out, fmt.Errorf("extract: %w", errors.Join(failures...))
	}
	return out, nil
}

// answerTokensPerMessage is the room left for the answer per message of a
// call when the context size is known: a few facts at about 30 tokens
// each in the compact style, about 100 in the full one.
func answerTokensPerMessage(style PromptStyle) int {
	if style == PromptCompact {
		return 128
	}
	return 384
}

// answerCapPerMessage is how many times its answer room a call's
// completion may take when the context size is known.
const answerCapPerMessage = 4

// call renders the structured call for one batch and estimates its prompt tokens.
func (x *Extractor) call(req kgmem.ExtractRequest) (jsonCall, int, error) {
	style := x.llm.cfg.PromptStyle
	system, user, err := renderExtraction(req, style)
	if err != nil {
		return jsonCall{}, 0, err
	}
	call := jsonCall{system: system, user: user, schemaName: "knowledge_graph", schema: extractionSchema(req.Schema, style), shapeShown: style == PromptCompact}
	raw, err := json.Marshal(call.schema)
	if err != nil {
		return jsonCall{}, 0, fmt.Errorf("encode schema: %w", err)
	}
	// The schema is counted whatever the mode: json_object and text modes
	// put it in the prompt, and servers turn json_schema into a grammar.
	prompt := estimateTokens(system) + estimateTokens(user) + estimateTokens(string(raw)) + promptOverheadTokens
	if window := x.llm.cfg.ContextSize; window > 0 {
		// What the window leaves, and no more than a generous answer: a
		// small model that loops fills the whole window otherwise (minutes
		// on a CPU).
		answer := answerCapPerMessage * answerTokensPerMessage(style) * max(len(req.Messages), 1)
		call.maxTokens = max(min(window-prompt, answer), 1)
	}
	return call, prompt, nil
}

// fits reports whether a call over msgs leaves room for its answer.
func (x *Extractor) fits(req kgmem.ExtractRequest, msgs []kgmem.Episode) bool {
	req.Messages = msgs
	_, prompt, err := x.call(req)
	return err == nil && prompt+len(msgs)*answerTokensPerMessage(x.llm.cfg.PromptStyle) <= x.llm.cfg.ContextSize
}

// fitContext drops the oldest context messages until the prompt without
// new messages takes at most half the context window; it returns how many
// it dropped.
func (x *Extractor) fitContext(req kgmem.ExtractRequest) (kgmem.ExtractRequest, int) {
	window := x.llm.cfg.ContextSize
	if window == 0 || len(req.Context) == 0 {
		return req, 0
	}
	dropped := 0
	for len(req.Context) > 0 {
		bare := req
		bare.Messages = nil
		if _, prompt, err := x.call(bare); err == nil && prompt <= window/2 {
			break
		}
		req.Context = req.Context[1:]
		dropped++
	}
	return req, dropped
}

// split groups the messages into calls of at most MaxMessagesPerCall and,
// when the context size is known, of a prompt that leaves room for the
// answer; a message that fits in no call is returned in tooLong.
func (x *Extractor) split(req kgmem.ExtractRequest) (chunks [][]kgmem.Episode, tooLong []kgmem.Episode) {
	if x.llm.cfg.ContextSize == 0 {
		return slices.Collect(slices.Chunk(req.Messages, MaxMessagesPerCall)), nil
	}
	var cur []kgmem.Episode
	for _, m := range req.Messages {
		if next := append(slices.Clip(cur), m); len(next) <= MaxMessagesPerCall && x.fits(req, next) {
			cur = next
			continue
		}
		if len(cur) > 0 {
			chunks = append(chunks, cur)
			cur = nil
		}
		if x.fits(req, []kgmem.Episode{m}) {
			cur = []kgmem.Episode{m}
		} else {
			tooLong = append(tooLong, m)
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks, tooLong
}

// extractOnce makes one structured call for one planned batch.
func (x *Extractor) extractOnce(ctx context.Context, req kgmem.ExtractRequest) (kgmem.Extraction, error) {
	var out kgmem.Extraction
	call, _, err := x.call(req)
	if err != nil {
		return out, err
	}
	var parsed rawExtraction
	call.parse = func(raw string) error {
		parsed = rawExtraction{}
		return json.Unmarshal([]byte(raw), &parsed)
	}
	usage, warnings, err := x.llm.completeJSON(ctx, call)
	out.Usage, out.Warnings = usage, warnings
	if err != nil {
		return out, err
	}
	v := validator{req: req, rels: relationTypes(req.Schema)}
	out.Entities = v.entities(parsed.Entities)
	out.Triples = v.facts(parsed.allFacts())
	out.Warnings = append(out.Warnings, v.warnings...)
	return out, nil
}

// rawExtraction is the model's answer as parsed, tolerant of common variations.
type rawExtraction struct {
	Entities      []rawEntity `json:"entities"`
	Facts         []rawFact   `json:"facts"`
	Triples       []rawFact   `json:"triples"`
	Relationships []rawFact   `json:"relationships"`
}

func (r rawExtraction) allFacts() []rawFact {
	return slices.Concat(r.Facts, r.Triples, r.Relationships)
}

// The raw fields are lenient: one oddly typed value leaves that value empty
// (and the item is then validated) instead of failing the whole answer.
type rawEntity struct {
	Name       flexText        `json:"name"`
	Type       flexText        `json:"type"`
	Aliases    flexStrings     `json:"aliases"`
	Attributes json.RawMessage `json:"attributes"`
}

type rawFact struct {
	Subject     flexText  `json:"subject"`
	SubjectType flexText  `json:"subject_type"`
	Predicate   flexText  `json:"predicate"`
	Relation    flexText  `json:"relation"`
	Object      flexText  `json:"object"`
	ObjectType  flexText  `json:"object_type"`
	Fact        flexText  `json:"fact"`
	ValidAt     flexText  `json:"valid_at"`
	InvalidAt   flexText  `json:"invalid_at"`
	Confidence  flexFloat `json:"confidence"`
	Importance  flexFloat `json:"importance"`
	Message     flexFloat `json:"message"`
}

// flexFloat accepts a JSON number, a numeric string or null.
type flexFloat struct {
	v   float64
	set bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexFloat) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" || string(b) == `""` {
		return nil
	}
	s := strings.Trim(string(b), `"`)
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return nil // a non-numeric value counts as absent; validation applies the default.
	}
	f.v, f.set = v, true
	return nil
}

// flexText accepts a string, a number or a boolean (literal objects such as
// ages) or an object with a "name"; anything else is empty.
type flexText string

// UnmarshalJSON implements json.Unmarshaler.
func (t *flexText) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case string:
		*t = flexText(x)
	case float64, bool:
		*t = flexText(strings.TrimSpace(string(b)))
	case map[string]any:
		if name, ok := x["name"].(string); ok {
			*t = flexText(name)
		}
	}
	return nil
}

// flexStrings accepts an array of strings, one string, or null.
type flexStrings []string

// UnmarshalJSON implements json.Unmarshaler.
func (s *flexStrings) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case string:
		*s = flexStrings{x}
	case []any:
		for _, e := range x {
			if str, ok := e.(string); ok {
				*s = append(*s, str)
			}
		}
	}
	return nil
}

// validator checks a parsed answer against the request.
type validator struct {
	req      kgmem.ExtractRequest
	rels     []string
	warnings []string
}

func (v *validator) warn(format string, args ...any) {
	v.warnings = append(v.warnings, fmt.Sprintf(format, args...))
}

func (v *validator) entities(raw []rawEntity) []kgmem.ExtractedEntity {
	var out []kgmem.ExtractedEntity
	seen := map[string]int{}
	for i, e := range raw {
		name, err := validateName("name", string(e.Name))
		if err == nil && isPronoun(name) {
			err = fmt.Errorf("%q is a pronoun", name)
		}
		if err != nil {
			v.warn("entity %d: %v, skipped", i+1, err)
			continue
		}
		ent := kgmem.ExtractedEntity{Name: name, Type: NormalizeEntityType(string(e.Type), v.req.Schema)}
		for _, a := range e.Aliases {
			if c, err := validateName("alias", a); err == nil && !isPronoun(c) && kgmem.NormalizeName(c) != kgmem.NormalizeName(name) &&
				!slices.ContainsFunc(ent.Aliases, func(x string) bool { return kgmem.NormalizeName(x) == kgmem.NormalizeName(c) }) {
				ent.Aliases = append(ent.Aliases, c)
			}
		}
		ent.Attributes = parseAttributes(e.Attributes)
		key := kgmem.NormalizeName(name)
		if j, ok := seen[key]; ok {
			out[j].Aliases = append(out[j].Aliases, ent.Aliases...)
			continue
		}
		seen[key] = len(out)
		out = append(out, ent)
	}
	return out
}

// parseAttributes accepts [{"name":…,"value":…}] pairs or a plain object.
func parseAttributes(raw json.RawMessage) map[string]any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	out := map[string]any{}
	var pairs []struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	}
	if err := json.Unmarshal(raw, &pairs); err == nil {
		for _, p := range pairs {
			if k := strings.TrimSpace(p.Name); k != "" && p.Value != nil {
				out[k] = p.Value
			}
		}
	} else {
		_ = json.Unmarshal(raw, &out) // anything else carries no usable attributes.
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (v *validator) facts(raw []rawFact) []kgmem.Triple {
	var out []kgmem.Triple
	if limit := MaxFactsPerMessage * len(v.req.Messages); len(raw) > limit {
		v.warn("model returned %d facts for %d message(s); kept the first %d", len(raw), len(v.req.Messages), limit)
		raw = raw[:limit]
	}
	for i, f := range raw {
		t, err := v.fact(f)
		if err != nil {
			v.warn("fact %d: %v, skipped", i+1, err)
			continue
		}
		out = append(out, t)
	}
	return out
}

func (v *validator) fact(f rawFact) (kgmem.Triple, error) {
	var t kgmem.Triple
	msg := v.message(f.Message)
	var ids []string
	if msg != nil {
		ids = []string{msg.ID}
	} else {
		for _, m := range v.req.Messages {
			ids = append(ids, m.ID)
		}
	}
	pred := string(f.Predicate)
	if strings.TrimSpace(pred) == "" {
		pred = string(f.Relation)
	}
	p, err := NormalizePredicate(pred)
	if err != nil {
		return t, err
	}
	if speechActs[strings.TrimPrefix(p, "is_")] {
		return t, fmt.Errorf("%q reports what was said, which the message itself keeps; not a fact", p)
	}
	if len(v.rels) > 0 && !slices.Contains(v.rels, p) {
		return t, fmt.Errorf("predicate %q is not a declared relation type", p)
	}
	subject, err := v.entityName("subject", string(f.Subject), msg)
	if err != nil {
		return t, err
	}
	object, err := v.entityName("object", string(f.Object), msg)
	if err != nil {
		return t, err
	}
	text := strings.Join(strings.Fields(string(f.Fact)), " ")
	if n := utf8.RuneCountInString(text); n > MaxFactTextLen {
		return t, fmt.Errorf("fact text is %d characters, at most %d allowed", n, MaxFactTextLen)
	}
	t = kgmem.Triple{Subject: subject, Predicate: p, Object: object, Text: text, EpisodeIDs: ids}
	if st := string(f.SubjectType); strings.TrimSpace(st) != "" {
		t.SubjectType = NormalizeEntityType(st, v.req.Schema)
	}
	if ot := string(f.ObjectType); strings.TrimSpace(ot) != "" {
		t.ObjectType = NormalizeEntityType(ot, v.req.Schema)
	}
	t.Confidence = DefaultConfidence
	if f.Confidence.set && !math.IsNaN(f.Confidence.v) {
		c := f.Confidence.v
		if c > 1 && c <= 100 {
			c /= 100 // a percentage
		}
		t.Confidence = math.Min(1, math.Max(0, c))
	}
	t.Importance = DefaultImportance
	if f.Importance.set && !math.IsNaN(f.Importance.v) {
		t.Importance = int(math.Min(10, math.Max(1, math.Round(f.Importance.v))))
	}
	if t.ValidAt, err = parseTime(string(f.ValidAt)); err != nil {
		v.warn("fact %q: valid_at %v; ignored", text, err)
	}
	if t.InvalidAt, err = parseTime(string(f.InvalidAt)); err != nil {
		v.warn("fact %q: invalid_at %v; ignored", text, err)
	}
	if !t.ValidAt.IsZero() && !t.InvalidAt.IsZero() && t.InvalidAt.Before(t.ValidAt) {
		v.warn("fact %q: invalid_at before valid_at; invalid_at ignored", text)
		t.InvalidAt = time.Time{}
	}
	return t, nil
}

// speechActs are predicates that restate a message ("Ana says hi, how are
// you"): the episode already holds the words, and as a fact they would only
// crowd search. Small models emit them for greetings.
var speechActs = map[string]bool{
	"says": true, "said": true, "asks": true, "asked": true, "tells": true, "told": true,
	"greets": true, "greeted": true, "replies": true, "replied": true, "writes": true, "wrote": true,
	"saying": true, "asking": true, "telling": true, "greeting": true,
}

// message returns the episode a fact cites by number, nil when out of range.
func (v *validator) message(n flexFloat) *kgmem.Episode {
	i := int(n.v)
	if !n.set || i < 1 || i > len(v.req.Messages) {
		if len(v.req.Messages) == 1 {
			return &v.req.Messages[0]
		}
		return nil
	}
	return &v.req.Messages[i-1]
}

// entityName validates a fact's subject or object; a first-person pronoun is
// resolved to the message's speaker.
func (v *validator) entityName(field, raw string, msg *kgmem.Episode) (string, error) {
	name, err := validateName(field, raw)
	if err != nil {
		return "", err
	}
	key := kgmem.NormalizeName(name)
	if firstPersonPronouns[key] {
		if msg != nil && CleanEntityName(msg.Name) != "" {
			v.warn("%s %q resolved to the speaker %q", field, name, msg.Name)
			return CleanEntityName(msg.Name), nil
		}
		return "", fmt.Errorf("%s %q is a pronoun and the speaker is unknown", field, name)
	}
	if otherPronouns[key] {
		return "", fmt.Errorf("%s %q is an unresolved pronoun", field, name)
	}
	return name, nil
}

// timeLayouts are the accepted spellings of valid_at/invalid_at (UTC when no zone).
var timeLayouts = []string{time.RFC3339Nano, time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02", "2006-01"}

// parseTime reads an RFC 3339-ish time; empty and "null" are the zero time.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "null") || strings.EqualFold(s, "unknown") {
		return time.Time{}, nil
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1 || t.Year() > 9999 {
				break
			}
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time", s)
}
