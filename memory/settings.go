package memory

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/triples"
)

// Settings returns the settings of ns with the effective decay parameters
// spelled out (defaults merged), so clients see what applies.
func (e *Engine) Settings(ctx context.Context, ns kgmem.Namespace) (kgmem.NamespaceSettings, decay.Params, error) {
	s, err := e.graph.Settings(ctx, ns)
	if err != nil {
		return kgmem.NamespaceSettings{}, decay.Params{}, fmt.Errorf("settings of %q: %w", ns, err)
	}
	p, err := decay.ParseParams(s.Decay)
	if err != nil {
		return kgmem.NamespaceSettings{}, decay.Params{}, fmt.Errorf("stored decay parameters of %q: %w", ns, err)
	}
	return s, p, nil
}

// PutSettings validates and replaces the settings of ns. Invalid decay
// parameters or schema types are rejected naming the field; nothing changes.
func (e *Engine) PutSettings(ctx context.Context, ns kgmem.Namespace, s kgmem.NamespaceSettings) error {
	if _, err := decay.ParseParams(s.Decay); err != nil {
		return err
	}
	if err := validateSchema(s.Schema); err != nil {
		return err
	}
	if err := validateCardinality(s.Cardinality); err != nil {
		return err
	}
	if err := ValidRecipe("search_recipe", s.SearchRecipe); err != nil {
		return err
	}
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return err
	}
	defer unlock()
	if err := e.graph.PutSettings(ctx, ns, s); err != nil {
		return fmt.Errorf("store settings of %q: %w", ns, err)
	}
	return nil
}

// validateSchema checks that declared types are named and unique.
func validateSchema(s *kgmem.Schema) error {
	if s == nil {
		return nil
	}
	for _, group := range []struct {
		field string
		defs  []kgmem.TypeDef
	}{{"schema.entity_types", s.EntityTypes}, {"schema.relation_types", s.RelationTypes}} {
		seen := map[string]bool{}
		for i, d := range group.defs {
			key := kgmem.NormalizeName(d.Name)
			switch {
			case d.Name == "":
				return kgmem.Invalidf(fmt.Sprintf("%s[%d].name", group.field, i), "is empty")
			case key == "":
				return kgmem.Unprocessablef(fmt.Sprintf("%s[%d].name", group.field, i), "is empty once spaces and format characters are removed")
			case len(d.Name) > maxNameBytes:
				return kgmem.TooLong(fmt.Sprintf("%s[%d].name", group.field, i), d.Name, maxNameBytes)
			case seen[key]:
				return kgmem.Unprocessablef(fmt.Sprintf("%s[%d].name", group.field, i), "declares %q twice", d.Name)
			}
			seen[key] = true
			at := fmt.Sprintf("%s[%d]", group.field, i)
			if err := checkCardinality(at+".cardinality", at+".name", d.Name, d.Cardinality); err != nil {
				return err
			}
			if d.Cardinality != "" && group.field == "schema.entity_types" {
				return kgmem.Unprocessablef(fmt.Sprintf("%s[%d].cardinality", group.field, i), "applies to relation types only")
			}
			if t, ok := d.Attributes["type"]; ok && t != "object" {
				return kgmem.Unprocessablef(fmt.Sprintf("%s[%d].attributes.type", group.field, i), "must be \"object\" (a JSON Schema of the attributes), got %v", t)
			}
		}
	}
	return nil
}

// validateCardinality checks the settings' cardinality overrides: valid
// predicates, known cardinalities.
func validateCardinality(m map[string]kgmem.Cardinality) error {
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if m[name] == "" { // an override must say something; null and "" do not
			return kgmem.Invalidf("cardinality."+name, "is empty, must be one of many, one_object, one_subject, one_each")
		}
		if err := checkCardinality("cardinality."+name, "cardinality."+name, name, m[name]); err != nil {
			return err
		}
	}
	return nil
}

// checkCardinality checks one override (at valuePath, its predicate at
// namePath); an empty cardinality is none.
func checkCardinality(valuePath, namePath, predicate string, c kgmem.Cardinality) error {
	if c == "" {
		return nil
	}
	if !c.Valid() {
		return kgmem.Invalidf(valuePath, "is %q, must be one of many, one_object, one_subject, one_each", c)
	}
	if _, err := triples.NormalizePredicate(predicate); err != nil {
		return kgmem.Unprocessablef(namePath, "is not a usable predicate: %v", err)
	}
	return nil
}
