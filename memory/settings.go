package memory

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
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
	unlock := e.lockNamespace(ns)
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
			case key == "":
				return kgmem.Invalidf(fmt.Sprintf("%s[%d].name", group.field, i), "is empty")
			case len(d.Name) > maxNameBytes:
				return kgmem.Invalidf(fmt.Sprintf("%s[%d].name", group.field, i), "is %d bytes, at most %d allowed", len(d.Name), maxNameBytes)
			case seen[key]:
				return kgmem.Invalidf(fmt.Sprintf("%s[%d].name", group.field, i), "declares %q twice", d.Name)
			}
			seen[key] = true
			if t, ok := d.Attributes["type"]; ok && t != "object" {
				return kgmem.Invalidf(fmt.Sprintf("%s[%d].attributes.type", group.field, i), "must be \"object\" (a JSON Schema of the attributes), got %v", t)
			}
		}
	}
	return nil
}
