package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/chatlog/gen"
	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/vector/milvus"
)

// ingestBackend is a backend pair an ingest test runs on: its server
// flags, and the proxy in front of Milvus (nil without Milvus).
type ingestBackend struct {
	args  []string
	proxy *faultproxy.Proxy
}

// ingestBackends are the backend pairs of TestIngestKillKeepsVectors: the
// embedded pair always; SQLite + Milvus and Neo4j + Milvus when the suite
// has them (a scope and a collection of the test's own, dropped after),
// Milvus behind a fault proxy.
func ingestBackends(t *testing.T) map[string]ingestBackend {
	t.Helper()
	pairs := map[string]ingestBackend{"sqlite+hnsw": {}}
	neo, mil := testenv.Neo4jURIIfAvailable(t), testenv.MilvusAddrIfAvailable(t)
	if mil == "" {
		return pairs
	}
	milvusPair := func(graph ...string) ingestBackend {
		proxy, err := faultproxy.Start(mil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = proxy.Close() })
		collection := "kill_" + strings.ReplaceAll(kgmem.NewID("t"), "_", "")
		t.Cleanup(func() { dropCollection(t, mil, collection) })
		return ingestBackend{proxy: proxy, args: append(graph, "--vector", "milvus", "--milvus-addr", proxy.Addr(), "--milvus-collection", collection)}
	}
	pairs["sqlite+milvus"] = milvusPair()
	if neo != "" {
		scope := "kill" + strings.ReplaceAll(kgmem.NewID("t"), "_", "")
		pairs["neo4j+milvus"] = milvusPair("--graph", "neo4j", "--neo4j-uri", neo, "--neo4j-scope", scope)
	}
	return pairs
}

// dropCollection drops a test's Milvus collection.
func dropCollection(t *testing.T, addr, collection string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ix, err := milvus.Open(ctx, milvus.Config{Address: addr, Collection: collection, Dim: 256})
	if err != nil {
		t.Logf("cleanup: %v", err)
		return
	}
	defer ix.Close()
	if err := ix.Drop(ctx); err != nil {
		t.Logf("cleanup: %v", err)
	}
}

// TestIngestKillKeepsVectors kills an in-process `server ingest` (no
// extraction: large batches) with SIGKILL twice as it goes, resumes it to
// the end, and runs `server check`: every message it stored must have its
// vector, without a reindex. On Milvus the second kill comes while Milvus
// stalls (a fault proxy holds its connections), so batches whose graph
// write succeeded are waiting on their vectors: before the import journaled
// its vector writes, those were lost for good (and a stall alone lost
// them, killed or not).
func TestIngestKillKeepsVectors(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("helper process")
	}
	for name, backend := range ingestBackends(t) {
		t.Run(name, func(t *testing.T) {
			messages, kills := 12000, []int{1000, 4000}
			if name == "neo4j+milvus" {
				messages, kills = 3000, []int{500, 1500} // Neo4j writes 500 messages in about a second here
			}
			dir := t.TempDir()
			input := filepath.Join(dir, "chat.jsonl")
			var buf bytes.Buffer
			if err := gen.Write(&buf, gen.Config{Messages: messages, Namespaces: 4, MessagesPerThread: 200, Seed: 5}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(input, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			dataDir := filepath.Join(dir, "data")
			ck := filepath.Join(dir, "ck")
			args := slices.Concat([]string{"ingest", "--data-dir", dataDir, "--batch", "500", "--concurrency", "4",
				"--checkpoint", ck, "--checkpoint-every", "50ms"}, backend.args, []string{input})
			killed := 0
			for i, at := range kills {
				stall := backend.proxy != nil && i == len(kills)-1
				cmd := serverProcess(t, args...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				stalledAt := 0
				deadline := time.Now().Add(2 * time.Minute)
			poll:
				for {
					select {
					case err := <-exited:
						t.Logf("run ended before the kill at %d: %v", at, err)
						break poll
					default:
					}
					done := checkpointTotal(ck)
					switch {
					case stall && stalledAt == 0 && done >= at:
						backend.proxy.Hang() // Milvus stalls: vector writes wait, graph writes go on
						stalledAt = done
					case (!stall && done >= at) || (stall && stalledAt > 0 && done >= stalledAt+1000):
						if err := cmd.Process.Kill(); err != nil { // SIGKILL
							t.Fatal(err)
						}
						<-exited
						killed++
						t.Logf("killed with the checkpoint at %d (Milvus stalled from %d)", done, stalledAt)
						break poll
					}
					if time.Now().After(deadline) {
						_ = cmd.Process.Kill()
						t.Fatalf("no checkpoint progress to %d within 2 minutes", at)
					}
					time.Sleep(5 * time.Millisecond) // polling interval, bounded by the deadline above
				}
				if backend.proxy != nil {
					if err := backend.proxy.Restore(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if killed == 0 {
				t.Fatal("every run finished before its kill; nothing was tested")
			}
			if out, err := serverProcess(t, args...).CombinedOutput(); err != nil {
				t.Fatalf("resumed run: %v\n%s", err, out)
			}
			checkArgs := slices.Concat([]string{"check", "--data-dir", dataDir}, backend.args)
			if out, err := serverProcess(t, checkArgs...).CombinedOutput(); err != nil {
				t.Fatalf("after %d kills and a resume, `server check` fails: %v\n%s", killed, err, tail(out, 3000))
			}
			if name == "sqlite+hnsw" || name == "sqlite+milvus" {
				if eps, _ := graphCounts(t, dataDir); eps != messages {
					t.Errorf("%d episodes stored, want %d", eps, messages)
				}
			}
		})
	}
}

// tail is the end of out, at most n bytes.
func tail(out []byte, n int) []byte {
	if len(out) > n {
		return out[len(out)-n:]
	}
	return out
}

// TestIngestStartsWithoutMilvus imports in process while Milvus refuses
// connections: every message is stored in the graph, the command succeeds
// and says its vector writes stay queued, and the next run, with Milvus
// back, applies them so that `server check` passes with no reindex.
// Before, the import refused to start.
func TestIngestStartsWithoutMilvus(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("helper process")
	}
	for name, backend := range ingestBackends(t) {
		if backend.proxy == nil {
			continue // the embedded index has no server to lose
		}
		t.Run(name, func(t *testing.T) {
			const messages = 400
			dir := t.TempDir()
			input := filepath.Join(dir, "chat.jsonl")
			var buf bytes.Buffer
			if err := gen.Write(&buf, gen.Config{Messages: messages, Namespaces: 2, MessagesPerThread: 100, Seed: 9}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(input, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			dataDir := filepath.Join(dir, "data")
			// The default consistency: `server check`, a process of its own
			// right after the second run applied the queued writes, must see
			// them all the same (it reads Strong whatever the setting).
			backendArgs := backend.args
			args := slices.Concat([]string{"ingest", "--data-dir", dataDir, "--checkpoint", filepath.Join(dir, "ck")}, backendArgs, []string{input})
			backend.proxy.Cut()
			out, err := serverProcess(t, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("import with Milvus down: %v\n%s", err, tail(out, 3000))
			}
			if !bytes.Contains(out, []byte(`"created": 400`)) || !bytes.Contains(out, []byte("stay queued")) {
				t.Fatalf("import with Milvus down: want all %d messages created and the vector writes said to stay queued:\n%s", messages, tail(out, 3000))
			}
			if err := backend.proxy.Restore(); err != nil {
				t.Fatal(err)
			}
			// `server check` counts the writes still queued, wherever the
			// outbox is kept, and says what applies them.
			checkArgs := slices.Concat([]string{"check", "--data-dir", dataDir}, backendArgs)
			var report, said bytes.Buffer
			check := serverProcess(t, checkArgs...)
			check.Stdout, check.Stderr = &report, &said
			if err := check.Run(); err == nil {
				t.Fatalf("`server check` with the vector writes still queued passed:\n%s", tail(report.Bytes(), 1500))
			}
			var sum checkSummary
			if err := json.Unmarshal(report.Bytes(), &sum); err != nil {
				t.Fatalf("`server check` printed no report (%v):\n%s\n%s", err, tail(report.Bytes(), 1500), tail(said.Bytes(), 1500))
			}
			queued := 0
			for _, r := range sum.Namespaces {
				queued += r.Queued
			}
			if queued < messages || !bytes.Contains(said.Bytes(), []byte("still queued")) {
				t.Errorf("`server check` reported %d queued vector writes, want at least the %d episodes', and said:\n%s", queued, messages, tail(said.Bytes(), 1500))
			}
			second, err := serverProcess(t, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("the run after Milvus returned: %v\n%s", err, tail(second, 3000))
			}
			if out, err := serverProcess(t, checkArgs...).CombinedOutput(); err != nil {
				t.Fatalf("`server check` after the queued vector writes were applied: %v\n%s\nthe second run said:\n%s", err, tail(out, 1500), tail(second, 1500))
			}
		})
	}
}
