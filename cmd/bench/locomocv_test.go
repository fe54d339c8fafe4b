package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/locomo"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/memory"
)

func TestParseGrid(t *testing.T) {
	tests := []struct {
		in      string
		params  int
		invalid bool
	}{
		{"", len(cvGrid()), false},
		{"thread_weight=1,0.8", 1, false},
		{"thread_weight=1,0.8; rrf_k=60,30", 2, false},
		{"thread_weight", 0, true},
		{"thread_weight=one", 0, true},
		{"colour=1", 0, true},
	}
	for _, tc := range tests {
		g, err := parseGrid(tc.in)
		switch {
		case tc.invalid && !errors.Is(err, kgmem.ErrInvalid):
			t.Errorf("parseGrid(%q) = %v, want ErrInvalid", tc.in, err)
		case !tc.invalid && (err != nil || len(g) != tc.params):
			t.Errorf("parseGrid(%q) = %v, %v", tc.in, g, err)
		}
	}
	for _, p := range cvGrid() {
		if err := applyParam(&memory.SearchOptions{}, p.Name, p.Values[0]); err != nil {
			t.Errorf("grid constant %q: %v", p.Name, err)
		}
	}
}

// TestLocomoCV runs the cross-validation on the shared conversations with a
// one-point grid: with nothing to choose, every fold's held-out recall is
// that point's, and the pooled figure equals the in-sample one.
func TestLocomoCV(t *testing.T) {
	data := testenv.LoCoMoData(t)
	jsonOut := filepath.Join(t.TempDir(), "cv.json")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"locomo-cv", "--data", data, "--grid", "thread_weight=1", "--json", jsonOut}, &out, &errOut); err != nil {
		t.Fatalf("run: %v (stderr %s)", err, errOut.String())
	}
	buf, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var res locomo.CVResult
	if err := json.Unmarshal(buf, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Folds) != 5 || res.Pooled.Overall().Questions != 759 {
		t.Fatalf("folds %d, pooled questions %d", len(res.Folds), res.Pooled.Overall().Questions)
	}
	if p, in := res.Pooled.Overall().Recall[0], res.InSample.Overall().Recall[0]; p != in || p < 50 {
		t.Errorf("pooled %v, in-sample %v: one point, so they must be equal (and well above BM25's 58.7)", p, in)
	}
}
