package triples

import (
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

func object(props map[string]any) map[string]any {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	slices.Sort(req)
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
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

// extractionSchema is the JSON schema of the extractor's answer.
func extractionSchema(schema *kgmem.Schema) map[string]any {
	typeProp := map[string]any{"type": "string", "enum": entityTypes(schema), "description": "entity type"}
	nullableType := map[string]any{"type": []string{"string", "null"}, "enum": toAny(entityTypes(schema), true), "description": "entity type"}
	predicate := str("relation in lower_snake_case, e.g. works_at, leads, likes, not_likes")
	if rels := relationTypes(schema); len(rels) > 0 {
		predicate = map[string]any{"type": "string", "enum": rels, "description": "relation type"}
	}
	attr := object(map[string]any{"name": str("attribute name"), "value": str("attribute value as text")})
	entity := object(map[string]any{
		"name":       str("canonical full name as used in the conversation, never a pronoun"),
		"type":       typeProp,
		"aliases":    array(str("other names, nicknames or spellings used for it")),
		"attributes": array(attr),
	})
	fact := object(map[string]any{
		"subject":      str("entity name of the subject (never a pronoun)"),
		"subject_type": nullableType,
		"predicate":    predicate,
		"object":       str("entity name or literal value of the object"),
		"object_type":  nullableType,
		"fact":         str("the fact as one self-contained sentence with full names"),
		"valid_at":     nullable("string", "RFC 3339 time the fact became true, resolved against the message timestamp; null if unknown"),
		"invalid_at":   nullable("string", "RFC 3339 time the fact stopped being true; null if it still holds or unknown"),
		"confidence":   map[string]any{"type": "number", "description": "0 to 1"},
		"importance":   map[string]any{"type": "integer", "description": "1 (trivia) to 10 (must never be forgotten)"},
		"message":      map[string]any{"type": "integer", "description": "number n of the message the fact comes from"},
	})
	return object(map[string]any{"entities": array(entity), "facts": array(fact)})
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
	return object(map[string]any{
		"entities": array(object(map[string]any{
			"id":       map[string]any{"type": "integer", "description": "the question id"},
			"match_id": nullable("string", "id of the known entity it is, or null if none"),
		})),
		"facts": array(object(map[string]any{
			"id":         map[string]any{"type": "integer", "description": "the question id"},
			"decision":   map[string]any{"type": "string", "enum": []string{"add", "duplicate", "update", "invalidate"}},
			"target_ids": array(str("ids of the existing facts the decision applies to")),
			"reason":     str("short reason"),
		})),
	})
}
