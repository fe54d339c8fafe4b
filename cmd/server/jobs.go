package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/jobs"
)

// jobsConfig tunes background ingestion ("mode": "async"); its fields are
// rows of the configuration table.
type jobsConfig struct {
	Workers  int
	Debounce time.Duration
	Lease    time.Duration
}

// openJobs opens the durable job records and starts the workers; jobs a
// previous run left pending run again. With Neo4j the records are in the
// database, shared by every server on it (a dead server's jobs are taken
// over), and the unfinished jobs of a jobs.db left in the data directory
// are copied in first; otherwise they are that jobs.db.
func openJobs(ctx context.Context, cfg *config, j jobsConfig, b *backends, log *slog.Logger) (*jobs.Runner, error) {
	jc := jobs.Config{Engine: b.engine, DataDir: cfg.DataDir, Workers: j.Workers, Debounce: j.Debounce, Lease: j.Lease, Logger: log, Metrics: b.metrics}
	if shared := sharedJobRecords(b.graph); shared != nil {
		jc.Records = shared
		if err := importJobs(ctx, filepath.Join(cfg.DataDir, jobs.FileName), jc.Records, log); err != nil {
			return nil, err
		}
	}
	r, err := jobs.Open(ctx, jc)
	if err != nil {
		return nil, fmt.Errorf("open background jobs: %w", err)
	}
	return r, nil
}

// sharedJobRecords returns the job records graph keeps for every server on
// it (kgmem.SharedJobs, as Neo4j does), or nil when it keeps none.
func sharedJobRecords(graph kgmem.GraphStore) kgmem.JobRecords {
	if shared, ok := graph.(kgmem.SharedJobs); ok {
		return shared.Jobs()
	}
	return nil
}

// importJobs copies into dst the unfinished jobs of the job file at path (a
// server that ran before its jobs were kept in Neo4j) that dst does not
// hold yet, so none is lost; a missing file is nothing to import.
func importJobs(ctx context.Context, path string, dst kgmem.JobRecords, log *slog.Logger) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	src, err := jobs.OpenFile(ctx, path)
	if err != nil {
		return err
	}
	defer src.Close()
	// Claiming as a name nobody else uses takes every unfinished job the
	// file holds; the file's leases do not matter to Neo4j's.
	left, err := src.Claim(ctx, "import-"+kgmem.NewID("srv"), 0, false, math.MaxInt32)
	if err != nil {
		return fmt.Errorf("read the jobs of %s: %w", path, err)
	}
	copied := 0
	for _, rec := range left {
		if _, err := dst.Get(ctx, rec.Namespace, rec.ID); err == nil {
			continue
		} else if !errors.Is(err, kgmem.ErrNotFound) {
			return fmt.Errorf("copy the jobs of %s into Neo4j: %w", path, err)
		}
		rec.Status = kgmem.JobQueued
		if err := dst.Insert(ctx, &rec, "", 0); err != nil {
			return fmt.Errorf("copy the jobs of %s into Neo4j: %w", path, err)
		}
		copied++
	}
	if copied > 0 {
		log.Info("copied unfinished background jobs into Neo4j", "file", path, "jobs", copied)
	}
	return nil
}
