package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"time"

	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/instrument"
	"github.com/kgmem/kgmem/internal/nslock"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// inProcess is a kgmem server on a loopback port over the embedded backends
// in dir, wired like cmd/server's default (SQLite graph, HNSW vectors, hash
// embedder, recall journal), with the Go and process collectors on /metrics.
type inProcess struct {
	url  string
	stop func() error
}

func startInProcess(ctx context.Context, dir string) (*inProcess, error) {
	quiet := slog.New(slog.DiscardHandler)
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Exclusive as cmd/server opens it: the process owns dir, so the store
	// keeps each namespace's versions in memory instead of reading them
	// back for every search.
	g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"), sqlite.Exclusive())
	if err != nil {
		return nil, fmt.Errorf("open graph store: %w", err)
	}
	emb := embed.NewHashing(256)
	v, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		_ = g.Close()
		return nil, fmt.Errorf("open vector index: %w", err)
	}
	models := decay.StoreModels(g)
	locks := new(nslock.Local)
	rf, err := decay.NewReinforcer(decay.ReinforcerConfig{Store: g, JournalPath: filepath.Join(dir, "recall.journal"), Models: models, Interval: 5 * time.Second, Logger: quiet, Lock: locks})
	if err != nil {
		_, _ = v.Close(), g.Close()
		return nil, fmt.Errorf("open recall journal: %w", err)
	}
	// Its store calls are timed on /metrics, as cmd/server's are.
	calls := instrument.New(reg)
	eng, err := memory.New(memory.Config{Graph: instrument.Graph(g, "sqlite", calls), Vectors: instrument.Vectors(v, "hnsw", calls), Embedder: emb, Decay: models, Reinforcer: rf, WriteLocks: locks, Logger: quiet, Metrics: reg,
		InlineWhenBusy: true})
	if err != nil {
		_, _ = v.Close(), g.Close()
		return nil, err
	}
	srv := api.New(eng, api.Options{Metrics: reg, Registerer: reg}, quiet)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_, _ = v.Close(), g.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(sctx, ln, 10*time.Second) }()
	return &inProcess{
		url: "http://" + ln.Addr().String(),
		stop: func() error {
			cancel()
			err := <-done
			cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer ccancel()
			return errors.Join(err, rf.Close(cctx), v.Close(), g.Close())
		},
	}, nil
}
