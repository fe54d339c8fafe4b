package kgmem

import "context"

// Extractor turns a batch of messages into entities and triples, usually by
// asking an LLM. The triples package implements it over any OpenAI-compatible
// chat endpoint.
type Extractor interface {
	Extract(ctx context.Context, req ExtractRequest) (Extraction, error)
}

// ExtractRequest is one batch of messages to extract from.
type ExtractRequest struct {
	Namespace Namespace
	// Messages are the new episodes, oldest first.
	Messages []Episode
	// Context are earlier episodes of the thread, for coreference only.
	Context []Episode
	// Schema constrains entity and relation types when set.
	Schema *Schema
}

// Extraction is what an Extractor found.
type Extraction struct {
	Entities []ExtractedEntity `json:"entities"`
	Triples  []Triple          `json:"facts"`
	Usage    LLMUsage          `json:"usage"`
	// Warnings explain anything dropped or repaired ("fact 3: empty subject, skipped").
	Warnings []string `json:"warnings,omitempty"`
}

// ExtractedEntity is an entity as the extractor named it.
type ExtractedEntity struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Aliases    []string       `json:"aliases,omitempty"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// LLMUsage counts LLM calls and tokens.
type LLMUsage struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Add returns the sum of u and v.
func (u LLMUsage) Add(v LLMUsage) LLMUsage {
	return LLMUsage{Calls: u.Calls + v.Calls, PromptTokens: u.PromptTokens + v.PromptTokens, CompletionTokens: u.CompletionTokens + v.CompletionTokens}
}

// Schema declares the entity and relation types a namespace (or one request)
// allows, with their attributes as JSON Schema objects.
type Schema struct {
	EntityTypes   []TypeDef `json:"entity_types,omitempty"`
	RelationTypes []TypeDef `json:"relation_types,omitempty"`
}

// TypeDef is one declared entity or relation type.
type TypeDef struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Attributes is a JSON Schema object describing the type's attributes.
	Attributes map[string]any `json:"attributes,omitempty"`
	// Cardinality, on a relation type only, overrides the built-in
	// cardinality table for this predicate in the namespace (empty: the table).
	Cardinality Cardinality `json:"cardinality,omitempty"`
}
