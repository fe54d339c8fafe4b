package triples

import (
	"encoding/json"
	"slices"

	"github.com/kgmem/kgmem"
)

// The JSON schemas sent as response_format json_schema (strict). Strict mode
// requires every property to be listed in "required" and additionalProperties
// false, so optional values are nullable instead of absent and free-form
// attributes are name/value pairs.

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func nullable(t, desc string) map[string]any {
	return map[string]any{"type": []string{t, "null"}, "description": desc}
}

// field is one property of an object schema.
type field struct {
	name   string
	schema map[string]any
}

// properties keeps an object's fields in the order written: constrained
// decoders (llama.cpp's grammars) emit properties in schema order, and a
// model writes a triple best subject first, not in alphabetical order.
type properties []field

// MarshalJSON implements json.Marshaler, writing the fields in order.
func (ps properties) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(p.name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.schema)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// object is a strict object schema with every field required.
func object(fields ...field) map[string]any {
	req := make([]string, len(fields))
	for i, f := range fields {
		req[i] = f.name
	}
	return map[string]any{"type": "object", "properties": properties(fields), "required": req, "additionalProperties": false}
}

func array(items map[string]any) map[string]any {
	return map[string]any{"type": "array", "items": items}
}

// entityTypes are the types the extractor may use: the schema's entity types
// plus Person and Other when a schema declares any, else the default types.
func entityTypes(schema *kgmem.Schema) []string {
	if schema == nil || len(schema.EntityTypes) == 0 {
		return kgmem.DefaultEntityTypes()
	}
	var out []string
	for _, td := range schema.EntityTypes {
		out = append(out, td.Name)
	}
	for _, t := range []string{kgmem.TypePerson, kgmem.TypeOther} {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// relationTypes are the declared predicates in canonical form (nil: any predicate).
func relationTypes(schema *kgmem.Schema) []string {
	if schema == nil {
		return nil
	}
	var out []string
	for _, td := range schema.RelationTypes {
		if p, err := NormalizePredicate(td.Name); err == nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// extractionSchema is the JSON schema of the extractor's answer in a style.
func extractionSchema(schema *kgmem.Schema, style PromptStyle) map[string]any {
	predicate := str("relation in lower_snake_case, e.g. works_at, leads, likes, not_likes")
	if rels := relationTypes(schema); len(rels) > 0 {
		predicate = map[string]any{"type": "string", "enum": rels, "description": "relation type"}
	}
	validAt := nullable("string", "RFC 3339 time the fact became true, resolved against the message timestamp; null if unknown")
	invalidAt := nullable("string", "RFC 3339 time the fact stopped being true; null if it still holds or unknown")
	message := map[string]any{"type": "integer", "description": "number n of the message the fact comes from"}
	if style == PromptCompact {
		return object(field{"facts", array(object(
			field{"subject", str("name, never a pronoun")},
			field{"predicate", predicate},
			field{"object", str("name or value")},
			field{"valid_at", validAt},
			field{"invalid_at", invalidAt},
			field{"message", message},
		))})
	}
	typeProp := map[string]any{"type": "string", "enum": entityTypes(schema), "description": "entity type"}
	nullableType := map[string]any{"type": []string{"string", "null"}, "enum": toAny(entityTypes(schema), true), "description": "entity type"}
	attr := object(field{"name", str("attribute name")}, field{"value", str("attribute value as text")})
	entity := object(
		field{"name", str("canonical full name as used in the conversation, never a pronoun")},
		field{"type", typeProp},
		field{"aliases", array(str("other names, nicknames or spellings used for it"))},
		field{"attributes", array(attr)},
	)
	fact := object(
		field{"subject", str("entity name of the subject (never a pronoun)")},
		field{"subject_type", nullableType},
		field{"predicate", predicate},
		field{"object", str("entity name or literal value of the object")},
		field{"object_type", nullableType},
		field{"fact", str("the fact as one self-contained sentence with full names")},
		field{"valid_at", validAt},
		field{"invalid_at", invalidAt},
		field{"confidence", map[string]any{"type": "number", "description": "0 to 1"}},
		field{"importance", map[string]any{"type": "integer", "description": "1 (trivia) to 10 (must never be forgotten)"}},
		field{"message", message},
	)
	return object(field{"entities", array(entity)}, field{"facts", array(fact)})
}

// toAny converts an enum to []any, adding JSON null when withNull is set.
func toAny(ss []string, withNull bool) []any {
	out := make([]any, 0, len(ss)+1)
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	if withNull {
		out = append(out, nil)
	}
	return out
}

// judgeSchema is the JSON schema of the batched resolution/decision answer.
func judgeSchema() map[string]any {
	return object(
		field{"entities", array(object(
			field{"id", map[string]any{"type": "integer", "description": "the question id"}},
			field{"match_id", nullable("string", "id of the known entity it is, or null if none")},
		))},
		field{"facts", array(object(
			field{"id", map[string]any{"type": "integer", "description": "the question id"}},
			field{"decision", map[string]any{"type": "string", "enum": []string{"add", "duplicate", "update", "invalidate"}}},
			field{"target_ids", array(str("ids of the existing facts the decision applies to"))},
			field{"reason", str("short reason")},
		))},
	)
}
