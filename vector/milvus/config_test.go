package milvus

import (
	"errors"
	"testing"

	"github.com/kgmem/kgmem"
)

func TestConfigDefaults(t *testing.T) {
	cfg, err := Config{Address: "localhost:19530", Dim: 8}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Collection != DefaultCollection || cfg.M != DefaultM || cfg.EfConstruction != DefaultEfConstruction ||
		cfg.Ef != DefaultEf || cfg.ConsistencyLevel != Strong || cfg.BatchSize != DefaultBatchSize || cfg.DialTimeout != DefaultDialTimeout {
		t.Errorf("defaults not applied: %+v", cfg)
	}
}

func TestConfigInvalid(t *testing.T) {
	ok := Config{Address: "localhost:19530", Dim: 8}
	tests := []struct {
		field string
		mod   func(*Config)
	}{
		{"address", func(c *Config) { c.Address = "" }},
		{"dim", func(c *Config) { c.Dim = 0 }},
		{"dim", func(c *Config) { c.Dim = maxDim + 1 }},
		{"collection", func(c *Config) { c.Collection = "bad-name" }},
		{"collection", func(c *Config) { c.Collection = `x" or "1` }},
		{"m", func(c *Config) { c.M = 2 }},
		{"ef_construction", func(c *Config) { c.EfConstruction = 1000 }},
		{"ef", func(c *Config) { c.Ef = -1 }},
		{"batch_size", func(c *Config) { c.BatchSize = -5 }},
		{"consistency_level", func(c *Config) { c.ConsistencyLevel = "Sometimes" }},
	}
	for _, tt := range tests {
		cfg := ok
		tt.mod(&cfg)
		_, err := cfg.withDefaults()
		var fe *kgmem.FieldError
		if !errors.Is(err, kgmem.ErrInvalid) || !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("%+v: got %v, want an ErrInvalid naming %q", cfg, err, tt.field)
		}
	}
}

func TestConsistencyLevels(t *testing.T) {
	for _, c := range []Consistency{Strong, Bounded, Session, Eventually} {
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
}
