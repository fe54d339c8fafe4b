package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

// TestSynthRunsAndReuses runs `bench synth` on a tiny memory twice: the
// first run builds it, the second reuses the data directory and writes
// allocation profiles (the first none, in the working directory either); a
// different seed is refused without --rebuild.
func TestSynthRunsAndReuses(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	out := filepath.Join(dir, "report.json")
	allocs := filepath.Join(dir, "profiles", "allocs")
	if err := os.Mkdir(filepath.Dir(allocs), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"synth", "--facts", "1200", "--entities", "300", "--namespaces", "2", "--prefix", "synthcmd",
		"--queries", "30", "--recall-queries", "5", "--concurrency", "2", "--data-dir", filepath.Join(dir, "data"), "--json", out}
	for _, wantReused := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		runArgs := args
		if wantReused {
			runArgs = append(runArgs, "--allocprofile", allocs)
		}
		if err := run(context.Background(), runArgs, &stdout, &stderr); err != nil {
			t.Fatalf("bench synth: %v\n%s", err, stderr.String())
		}
		for _, path := range []string{allocs + ".base", allocs} {
			buf, err := os.ReadFile(path)
			if wantReused && (err != nil || !bytes.HasPrefix(buf, []byte{0x1f, 0x8b})) {
				t.Fatalf("--allocprofile: %s holds %d bytes (%v), want a gzipped profile", path, len(buf), err)
			}
			if !wantReused && !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("without --allocprofile %s exists (%v)", path, err)
			}
		}
		if entries, err := os.ReadDir("."); err != nil || slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".base") }) {
			t.Fatalf("a profile landed in the working directory: %v %v", entries, err)
		}
		if !strings.Contains(stdout.String(), "vector recall@10 vs exact: mean 1.000") {
			t.Fatalf("report lacks the recall line:\n%s", stdout.String())
		}
		buf, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var rep synthReport
		if err := json.Unmarshal(buf, &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Reused != wantReused || rep.Build.Facts != 1200 || rep.Build.Namespaces != 2 || rep.DiskBytes == 0 {
			t.Fatalf("report: reused %v facts %d namespaces %d disk %d; want reused %v, 1200, 2, >0",
				rep.Reused, rep.Build.Facts, rep.Build.Namespaces, rep.DiskBytes, wantReused)
		}
		if len(rep.Search) != 2 || rep.Search[0].Concurrency != 1 || rep.Search[1].Concurrency != 2 || rep.Search[0].Errors != 0 {
			t.Fatalf("search passes %+v, want concurrency 1 and 2 without errors", rep.Search)
		}
		if rep.Recall == nil || rep.Recall.Mean != 1 || rep.Resources.MaxRSSBytes <= 0 {
			t.Fatalf("recall %+v, resources %+v", rep.Recall, rep.Resources)
		}
	}
	var stderr bytes.Buffer
	err := run(context.Background(), append(args, "--seed", "2"), &bytes.Buffer{}, &stderr)
	var fe *kgmem.FieldError
	if !errors.As(err, &fe) || fe.Field != "data-dir" {
		t.Fatalf("another seed on the same data dir: %v, want an error naming data-dir", err)
	}
}

func TestSynthFlagErrors(t *testing.T) {
	tests := []struct {
		args  []string
		field string
	}{
		{[]string{"--graph", "postgres"}, "graph"},
		{[]string{"--vector", "faiss"}, "vector"},
		{[]string{"--concurrency", "0"}, "concurrency"},
		{[]string{"--limit", "500"}, "limit"},
		{[]string{"--namespaces", "0"}, "namespaces"},
		{[]string{"--prefix", "no spaces"}, "prefix"},
		{[]string{"--reuse"}, "reuse"},
		{[]string{"--reuse", "--graph", "neo4j"}, "reuse"},
		{[]string{"--milvus-settle", "-1s"}, "milvus-settle"},
	}
	for _, tt := range tests {
		err := run(context.Background(), append([]string{"synth"}, tt.args...), &bytes.Buffer{}, &bytes.Buffer{})
		var fe *kgmem.FieldError
		if !errors.Is(err, kgmem.ErrInvalid) || !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("%v: got %v, want an invalid %s", tt.args, err, tt.field)
		}
	}
}
