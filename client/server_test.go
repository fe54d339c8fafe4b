package client_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/client"
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

// newServer starts a real kgmem server (the REST API over the engine on the
// embedded SQLite + HNSW pair, with the background job runner) and returns
// a client of it.
func newServer(t testing.TB, opts ...client.Option) *client.Client {
	t.Helper()
	url := startServer(t)
	c, err := client.New(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startServer starts the server of newServer and returns its base URL.
func startServer(t testing.TB) string {
	t.Helper()
	url, stop, err := serve(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return url
}

// serve starts a real kgmem server on loopback with its data in dir: the
// REST API over the engine on the embedded SQLite + HNSW pair, with the
// background job runner, the recall journal and Go metrics. stop shuts it
// down.
func serve(dir string) (url string, stop func(), err error) {
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		return "", nil, err
	}
	emb := embed.NewHashing(256)
	v, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		return "", nil, errors.Join(err, g.Close())
	}
	models := decay.StoreModels(g)
	locks := new(nslock.Striped)
	rf, err := decay.NewReinforcer(decay.ReinforcerConfig{Store: g, JournalPath: filepath.Join(dir, "recall.journal"), Models: models, Interval: time.Hour, Logger: quiet, Lock: locks.Lock})
	if err != nil {
		return "", nil, errors.Join(err, v.Close(), g.Close())
	}
	eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Decay: models, Reinforcer: rf, WriteLocks: locks, Logger: quiet})
	if err != nil {
		return "", nil, errors.Join(err, rf.Close(ctx), v.Close(), g.Close())
	}
	runner, err := jobs.Open(ctx, jobs.Config{Engine: eng, DataDir: dir, Workers: 1, Logger: quiet})
	if err != nil {
		return "", nil, errors.Join(err, rf.Close(ctx), v.Close(), g.Close())
	}
	metrics := prometheus.NewRegistry()
	metrics.MustRegister(collectors.NewGoCollector())
	srv := httptest.NewServer(api.New(eng, api.Options{Jobs: runner, MaxPageSize: 100, Metrics: metrics}, quiet).Handler())
	return srv.URL, func() {
		srv.Close()
		_ = runner.Close()
		_ = rf.Close(ctx)
		_ = v.Close()
		_ = g.Close()
	}, nil
}
