package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
)

// sweep runs the forgetting sweep once, over one namespace or all, and prints
// what it marked forgotten as JSON. Nothing is deleted.
func sweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	var namespace string
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.bindFlags(fs)
	fs.StringVar(&namespace, "namespace", "", "sweep only this namespace (default: all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	log := cfg.logger()
	b, err := openBackends(ctx, &cfg, log)
	if err != nil {
		return err
	}
	defer b.close(log)

	stats := map[kgmem.Namespace]decay.SweepStats{}
	if namespace != "" {
		ns, err := kgmem.ParseNamespace(namespace)
		if err != nil {
			return err
		}
		if stats[ns], err = b.engine.Sweep(ctx, ns); err != nil {
			return err
		}
	} else if stats, err = b.engine.SweepAll(ctx); err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(stats); err != nil {
		return fmt.Errorf("print sweep stats: %w", err)
	}
	return nil
}
