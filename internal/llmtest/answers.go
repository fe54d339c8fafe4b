package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Markers that tell the two kinds of requests the triples package sends apart,
// for Rule.Contains. The triples tests check its prompts still contain them.
const (
	// ExtractionMarker starts the user message of an extraction request.
	ExtractionMarker = "Extract the entities and facts"
	// JudgeMarker starts the user message of the batched resolution/decision request.
	JudgeMarker = "Answer these questions"
)

// Entity is one entity of a scripted extraction answer.
type Entity struct {
	Name    string
	Type    string
	Aliases []string
}

// Fact is one fact of a scripted extraction answer. Zero Confidence and
// Importance become 0.9 and 5; zero Message becomes 1; empty ValidAt and
// InvalidAt become null.
type Fact struct {
	Subject, Predicate, Object string
	// Text is the one-sentence fact.
	Text               string
	ValidAt, InvalidAt string
	Confidence         float64
	Importance         int
	// Message is the 1-based number of the message the fact comes from.
	Message int
}

// ExtractionJSON renders an extraction answer exactly in the shape the
// triples extractor's JSON schema asks for (every field present, nulls for
// unknowns), as a real model in structured-output mode would write it.
// Subject and object types are taken from entities with the same name.
func ExtractionJSON(entities []Entity, facts []Fact) string {
	type rawEntity struct {
		Name       string   `json:"name"`
		Type       string   `json:"type"`
		Aliases    []string `json:"aliases"`
		Attributes []any    `json:"attributes"`
	}
	type rawFact struct {
		Subject     string  `json:"subject"`
		SubjectType *string `json:"subject_type"`
		Predicate   string  `json:"predicate"`
		Object      string  `json:"object"`
		ObjectType  *string `json:"object_type"`
		Fact        string  `json:"fact"`
		ValidAt     *string `json:"valid_at"`
		InvalidAt   *string `json:"invalid_at"`
		Confidence  float64 `json:"confidence"`
		Importance  int     `json:"importance"`
		Message     int     `json:"message"`
	}
	out := struct {
		Entities []rawEntity `json:"entities"`
		Facts    []rawFact   `json:"facts"`
	}{Entities: []rawEntity{}, Facts: []rawFact{}}
	types := map[string]string{}
	for _, e := range entities {
		out.Entities = append(out.Entities, rawEntity{Name: e.Name, Type: e.Type, Aliases: append([]string{}, e.Aliases...), Attributes: []any{}})
		types[e.Name] = e.Type
		for _, a := range e.Aliases {
			types[a] = e.Type
		}
	}
	optional := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	for _, f := range facts {
		r := rawFact{Subject: f.Subject, Predicate: f.Predicate, Object: f.Object, Fact: f.Text,
			ValidAt: optional(f.ValidAt), InvalidAt: optional(f.InvalidAt),
			Confidence: f.Confidence, Importance: f.Importance, Message: f.Message}
		if r.Confidence == 0 {
			r.Confidence = 0.9
		}
		if r.Importance == 0 {
			r.Importance = 5
		}
		if r.Message == 0 {
			r.Message = 1
		}
		if r.Fact == "" {
			r.Fact = fmt.Sprintf("%s %s %s.", f.Subject, strings.ReplaceAll(f.Predicate, "_", " "), f.Object)
		}
		r.SubjectType, r.ObjectType = optional(types[f.Subject]), optional(types[f.Object])
		out.Facts = append(out.Facts, r)
	}
	raw, _ := json.Marshal(out) // plain structs always encode.
	return string(raw)
}

// FactDecision is one answer of a scripted judge reply.
type FactDecision struct {
	// Decision is add, duplicate, update or invalidate.
	Decision string
	// TargetIDs are the existing facts it applies to.
	TargetIDs []string
	Reason    string
}

// JudgeJSON renders a judge answer: entity matches by question order (an
// empty id means "no match") and fact decisions by question order.
func JudgeJSON(entityMatches []string, facts []FactDecision) string {
	type ent struct {
		ID      int     `json:"id"`
		MatchID *string `json:"match_id"`
	}
	type fct struct {
		ID        int      `json:"id"`
		Decision  string   `json:"decision"`
		TargetIDs []string `json:"target_ids"`
		Reason    string   `json:"reason"`
	}
	out := struct {
		Entities []ent `json:"entities"`
		Facts    []fct `json:"facts"`
	}{Entities: []ent{}, Facts: []fct{}}
	for i, m := range entityMatches {
		e := ent{ID: i + 1}
		if m != "" {
			e.MatchID = &m
		}
		out.Entities = append(out.Entities, e)
	}
	for i, f := range facts {
		out.Facts = append(out.Facts, fct{ID: i + 1, Decision: f.Decision, TargetIDs: append([]string{}, f.TargetIDs...), Reason: f.Reason})
	}
	raw, _ := json.Marshal(out) // plain structs always encode.
	return string(raw)
}
