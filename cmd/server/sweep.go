package main

import (
	"context"
	"io"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
)

// sweep runs the forgetting sweep once, over one namespace or all, and prints
// what it marked forgotten as JSON. Nothing is deleted.
func sweep(ctx context.Context, cfg *config, only []kgmem.Namespace, stdout io.Writer) error {
	log := cfg.logger()
	b, err := openBackends(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer b.close(log)

	stats := map[kgmem.Namespace]decay.SweepStats{}
	if only != nil {
		if stats[only[0]], err = b.engine.Sweep(ctx, only[0]); err != nil {
			return err
		}
	} else if stats, err = b.engine.SweepAll(ctx); err != nil {
		return err
	}
	return printJSON(stdout, stats)
}
