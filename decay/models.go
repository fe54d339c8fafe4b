package decay

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem"
)

// ModelFunc returns the decay model of a namespace, so per-namespace
// parameters apply.
type ModelFunc func(ctx context.Context, ns kgmem.Namespace) (Model, error)

// ModelFromSettings builds the model of a namespace's settings
// (kgmem.NamespaceSettings.Decay, merged over DefaultParams).
func ModelFromSettings(s kgmem.NamespaceSettings) (Model, error) {
	p, err := ParseParams(s.Decay)
	if err != nil {
		return Model{}, err
	}
	return NewModel(p)
}

// StoreModels is a ModelFunc that reads each namespace's settings from store
// on every call.
func StoreModels(store kgmem.GraphStore) ModelFunc {
	return func(ctx context.Context, ns kgmem.Namespace) (Model, error) {
		s, err := store.Settings(ctx, ns)
		if err != nil {
			return Model{}, fmt.Errorf("decay settings of %s: %w", ns, err)
		}
		return NamespaceModel(ns, s)
	}
}

// NamespaceModel is the model of ns from its settings s, already read: what
// StoreModels answers.
func NamespaceModel(ns kgmem.Namespace, s kgmem.NamespaceSettings) (Model, error) {
	m, err := ModelFromSettings(s)
	if err != nil {
		return Model{}, fmt.Errorf("decay settings of %s: %w", ns, err)
	}
	return m, nil
}
