package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/kgmem/kgmem/jobs"
)

// jobsConfig tunes background ingestion ("mode": "async").
type jobsConfig struct {
	Workers  int
	Debounce time.Duration
}

// bind registers the background-ingestion flags, defaulting from the environment.
func (j *jobsConfig) bind(fs *flag.FlagSet, c *config) {
	fs.IntVar(&j.Workers, "job-workers", c.envInt("KGMEM_JOB_WORKERS", 4), "background ingest jobs run at once ($KGMEM_JOB_WORKERS)")
	fs.DurationVar(&j.Debounce, "debounce", c.envDuration("KGMEM_DEBOUNCE", 2*time.Second),
		"async messages of one thread arriving within this window are coalesced into one extraction; 0: no wait ($KGMEM_DEBOUNCE)")
}

func (j *jobsConfig) validate() error {
	if j.Workers < 1 || j.Debounce < 0 {
		return errors.New("--job-workers must be >= 1 and --debounce >= 0")
	}
	return nil
}

// openJobs opens the durable job store in the data directory and starts the
// workers; jobs a previous run left pending run again.
func openJobs(ctx context.Context, cfg *config, j jobsConfig, b *backends, log *slog.Logger) (*jobs.Runner, error) {
	r, err := jobs.Open(ctx, jobs.Config{Engine: b.engine, DataDir: cfg.DataDir, Workers: j.Workers, Debounce: j.Debounce, Logger: log, Metrics: b.metrics})
	if err != nil {
		return nil, fmt.Errorf("open background jobs: %w", err)
	}
	return r, nil
}
