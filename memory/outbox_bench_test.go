package memory_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/outbox"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// BenchmarkIngestOutbox measures what the write-ahead vector outbox costs an
// ingest on the embedded backends: the same ingests with the file outbox (one
// fsynced append per request) and with the in-memory one, for requests of 1
// and 100 messages.
//
//	go test ./memory -run '^$' -bench IngestOutbox -benchtime 2000x -count 5
func BenchmarkIngestOutbox(b *testing.B) {
	for _, size := range []int{1, 100} {
		for _, durable := range []bool{false, true} {
			name := fmt.Sprintf("messages=%d/outbox=%s", size, map[bool]string{false: "memory", true: "file"}[durable])
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				dir := b.TempDir()
				g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
				if err != nil {
					b.Fatal(err)
				}
				defer g.Close()
				ix, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), 256, hnsw.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer ix.Close()
				cfg := memory.Config{Graph: g, Vectors: ix, Embedder: embed.NewHashing(256), Logger: slog.New(slog.DiscardHandler)}
				if durable {
					box, _, err := outbox.Open(filepath.Join(dir, "vector.outbox"))
					if err != nil {
						b.Fatal(err)
					}
					defer box.Close()
					cfg.Outbox = box
				}
				eng, err := memory.New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
				b.ResetTimer()
				for i := range b.N {
					msgs := make([]episodes.Message, size)
					for j := range msgs {
						msgs[j] = episodes.Message{ID: fmt.Sprintf("m%d-%d", i, j), Role: "user", Name: "Ann", Content: fmt.Sprintf("Message %d.%d about launch windows and rockets.", i, j), Timestamp: ts}
					}
					if _, err := eng.Ingest(ctx, memory.IngestRequest{Namespace: kgmem.Namespace("bench/a"), ThreadID: fmt.Sprint(i % 10), Messages: msgs}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "msgs/s")
			})
		}
	}
}
