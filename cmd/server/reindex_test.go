package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// embeddedBackends opens the default embedded backends on a new data
// directory, as the subcommands would with no backend configured, and
// returns the directory, the configuration and the backends (closed by the
// caller, before running a subcommand on the directory).
func embeddedBackends(t *testing.T) (string, *config, *backends) {
	t.Helper()
	for _, name := range []string{"KGMEM_GRAPH", "KGMEM_VECTOR", "KGMEM_EMBEDDER", "KGMEM_DATA_DIR", "KGMEM_LLM_BASE_URL"} {
		t.Setenv(name, "")
	}
	dir := t.TempDir()
	cfg, err := parse(t, "--data-dir", dir, "--log-level", "error")
	if err != nil {
		t.Fatal(err)
	}
	b, err := openBackends(context.Background(), cfg, cfg.logger())
	if err != nil {
		t.Fatal(err)
	}
	return dir, cfg, b
}

// TestCheckAndReindexCommands seeds an embedded data directory, deletes one
// episode's vector behind the engine's back, and runs the commands as a user
// would: check fails naming the missing vector, reindex repairs it and
// prints its summary, check then passes, and a second reindex changes nothing.
func TestCheckAndReindexCommands(t *testing.T) {
	ctx := context.Background()
	dir, cfg, b := embeddedBackends(t)
	const ns = kgmem.Namespace("cli/a")
	var lost string
	for i, text := range []string{"The rocket launched at dawn.", "Mission control cheered loudly."} {
		res, err := b.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{{
			ID: string(rune('a' + i)), Role: "user", Content: text, Timestamp: time.Date(2024, 1, 1, i, 0, 0, 0, time.UTC)}}})
		if err != nil {
			t.Fatal(err)
		}
		lost = res.Episodes[0].ID
	}
	b.close(cfg.logger())
	ix, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), cfg.EmbedDim, hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Delete(ctx, ns, []string{lost}); err != nil {
		t.Fatal(err)
	}
	_ = ix.Close()

	runCmd := func(args ...string) ([]byte, error) {
		var out bytes.Buffer
		err := run(ctx, append(args, "--data-dir", dir, "--log-level", "error"), &out, io.Discard)
		return out.Bytes(), err
	}
	steps := []struct {
		name         string
		args         []string
		inconsistent bool
		check        func(t *testing.T, out []byte)
	}{
		{"check finds the missing vector", []string{"check"}, true, func(t *testing.T, out []byte) {
			var sum checkSummary
			if err := json.Unmarshal(out, &sum); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if sum.Consistent || len(sum.Namespaces) != 1 || sum.Namespaces[0].MissingVectors != 1 || sum.Namespaces[0].Missing[0].ID != lost {
				t.Errorf("check report %s, want %s missing", out, lost)
			}
		}},
		{"reindex repairs", []string{"reindex", "--namespace", string(ns)}, false, func(t *testing.T, out []byte) {
			var sum reindexSummary
			if err := json.Unmarshal(out, &sum); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if sum.Total.Episodes != 2 || sum.Total.Upserted != 2 || sum.Total.OrphansDeleted != 0 || sum.Duration == "" {
				t.Errorf("reindex summary %s, want 2 episodes upserted", out)
			}
		}},
		{"check passes", []string{"check", "--namespace", string(ns)}, false, func(t *testing.T, out []byte) {
			var sum checkSummary
			if err := json.Unmarshal(out, &sum); err != nil || !sum.Consistent || sum.Namespaces[0].Vectors != 2 {
				t.Errorf("check after reindex: %s (%v)", out, err)
			}
		}},
		{"reindex again changes nothing", []string{"reindex"}, false, func(t *testing.T, out []byte) {
			var sum reindexSummary
			if err := json.Unmarshal(out, &sum); err != nil || sum.Total.Upserted != 2 || sum.Total.OrphansDeleted != 0 {
				t.Errorf("second reindex: %s (%v)", out, err)
			}
		}},
	}
	for _, st := range steps {
		out, err := runCmd(st.args...)
		if st.inconsistent != errors.Is(err, errInconsistent) || (err != nil && !st.inconsistent) {
			t.Fatalf("%s: error %v (inconsistent expected: %v)", st.name, err, st.inconsistent)
		}
		st.check(t, out)
	}
	if _, err := runCmd("check", "--namespace", "a//b"); err == nil {
		t.Error("check with a malformed --namespace succeeded")
	}
}

// TestSweepCommand runs `server sweep` on an embedded data directory: over one
// namespace and over all it prints the per-namespace counts as JSON (a fresh
// memory has nothing faded to forget), and bad input is refused.
func TestSweepCommand(t *testing.T) {
	ctx := context.Background()
	dir, cfg, b := embeddedBackends(t)
	for _, ns := range []kgmem.Namespace{"cli/a", "cli/b"} {
		if _, err := b.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{{
			ID: "m1", Role: "user", Content: "The rocket launched at dawn.", Timestamp: time.Now().UTC()}}}); err != nil {
			t.Fatal(err)
		}
	}
	b.close(cfg.logger())

	runSweep := func(args ...string) (map[kgmem.Namespace]decay.SweepStats, error) {
		var out bytes.Buffer
		if err := run(ctx, append(append([]string{"sweep"}, args...), "--data-dir", dir, "--log-level", "error"), &out, io.Discard); err != nil {
			return nil, err
		}
		var stats map[kgmem.Namespace]decay.SweepStats
		if err := json.Unmarshal(out.Bytes(), &stats); err != nil {
			t.Fatalf("sweep output %q: %v", out.String(), err)
		}
		return stats, nil
	}
	tests := []struct {
		name string
		args []string
		want []kgmem.Namespace
	}{
		{"one namespace", []string{"--namespace", "cli/a"}, []kgmem.Namespace{"cli/a"}},
		{"every namespace", nil, []kgmem.Namespace{"cli/a", "cli/b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stats, err := runSweep(tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if len(stats) != len(tc.want) {
				t.Fatalf("sweep reported %d namespaces, want %v: %+v", len(stats), tc.want, stats)
			}
			for _, ns := range tc.want {
				st, ok := stats[ns]
				if !ok {
					t.Fatalf("sweep did not report %s: %+v", ns, stats)
				}
				if st.Episodes.Scanned != 1 || st.Total().Forgotten != 0 {
					t.Errorf("%s: %+v, want 1 episode scanned and nothing forgotten", ns, st)
				}
			}
		})
	}
	for _, args := range [][]string{{"--namespace", "a//b"}, {"extra-argument"}} {
		if _, err := runSweep(args...); err == nil {
			t.Errorf("sweep %q succeeded", args)
		}
	}
}
