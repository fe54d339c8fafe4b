// Package apitest starts a complete kgmem REST API in a test: the engine on
// the embedded SQLite + HNSW pair with the recall journal (feedback works),
// the background job runner (async ingest works) and Go metrics, so clients
// of the API (the Go client, the MCP tools) test against the real thing.
package apitest

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/nslock"
	"github.com/kgmem/kgmem/jobs"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// New builds the API with its data in dir. opts are the API's options
// (keys, MCP, limits); New sets Jobs and, when unset, Metrics and a page
// size of 100. close stops everything New started.
func New(dir string, opts api.Options) (srv *api.Server, close func(), err error) {
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		return nil, nil, err
	}
	emb := embed.NewHashing(256)
	v, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		return nil, nil, errors.Join(err, g.Close())
	}
	models := decay.StoreModels(g)
	locks := new(nslock.Local)
	rf, err := decay.NewReinforcer(decay.ReinforcerConfig{Store: g, JournalPath: filepath.Join(dir, "recall.journal"), Models: models, Interval: time.Hour, Logger: quiet, Lock: locks})
	if err != nil {
		return nil, nil, errors.Join(err, v.Close(), g.Close())
	}
	eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Decay: models, Reinforcer: rf, WriteLocks: locks, Logger: quiet})
	if err != nil {
		return nil, nil, errors.Join(err, rf.Close(ctx), v.Close(), g.Close())
	}
	runner, err := jobs.Open(ctx, jobs.Config{Engine: eng, DataDir: dir, Workers: 1, Logger: quiet})
	if err != nil {
		return nil, nil, errors.Join(err, rf.Close(ctx), v.Close(), g.Close())
	}
	if opts.Metrics == nil {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector())
		opts.Metrics = reg
	}
	if opts.MaxPageSize == 0 {
		opts.MaxPageSize = 100
	}
	opts.Jobs = runner
	return api.New(eng, opts, quiet), func() {
		_ = runner.Close()
		_ = rf.Close(ctx)
		_ = v.Close()
		_ = g.Close()
	}, nil
}
