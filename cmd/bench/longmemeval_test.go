package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/bench/locomo"
	"github.com/kgmem/kgmem/bench/longmemeval"
	"github.com/kgmem/kgmem/internal/apitest"
	"github.com/kgmem/kgmem/memory"
)

const lmeFixture = "../../bench/longmemeval/testdata/mini.json"

func TestLongMemEvalFlagErrors(t *testing.T) {
	tests := []struct {
		args  []string
		field string // "" when the error names no field
		want  error
	}{
		{[]string{"--concurrency", "0"}, "concurrency", kgmem.ErrInvalid},
		{[]string{"--batch", "0"}, "batch", kgmem.ErrInvalid},
		{[]string{"--limit", "-1"}, "limit", kgmem.ErrInvalid},
		{[]string{"--folds", "1"}, "folds", kgmem.ErrInvalid},
		{[]string{"--k", "5,200"}, "k", kgmem.ErrInvalid},
		{[]string{"--k", "five"}, "", kgmem.ErrInvalid},
		{[]string{"--types", " , "}, "", kgmem.ErrInvalid},
		{[]string{"--grid", "colour=1"}, "grid", kgmem.ErrInvalid},
		{[]string{"--grid", "thread_weight=one"}, "grid", kgmem.ErrInvalid},
		{[]string{"--grid", "thread_weight=1,0", "--url", "http://127.0.0.1:1"}, "grid", kgmem.ErrInvalid},
		{[]string{"--data-dir", "x", "--url", "http://127.0.0.1:1"}, "data-dir", kgmem.ErrInvalid},
		{[]string{"--url", "localhost:8080"}, "", kgmem.ErrInvalid},
		{[]string{"stray"}, "", kgmem.ErrInvalid},
		{[]string{"--nope"}, "", kgmem.ErrInvalid},
		{[]string{"--data", lmeFixture, "--types", "multi-session,galaxy"}, "types", kgmem.ErrInvalid},
		{[]string{"--data", lmeFixture, "--folds", "3", "--grid", "thread_weight=1"}, "folds", kgmem.ErrInvalid},
		{[]string{"--data", filepath.Join(t.TempDir(), "none.json.gz")}, "", kgmem.ErrNotFound},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		err := run(context.Background(), append([]string{"longmemeval"}, tt.args...), &bytes.Buffer{}, &stderr)
		var fe *kgmem.FieldError
		switch {
		case !errors.Is(err, tt.want):
			t.Errorf("%v: %v, want %v", tt.args, err, tt.want)
		case tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field):
			t.Errorf("%v: %v, want an error naming %s", tt.args, err, tt.field)
		}
	}
}

func TestSelectQuestions(t *testing.T) {
	qs, err := longmemeval.Load(lmeFixture)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		types []string
		limit int
		want  string
	}{
		{nil, 0, "q1 q2 q3_abs"},
		{nil, 2, "q1 q2"},
		{[]string{"multi-session", "temporal-reasoning"}, 0, "q2 q3_abs"},
		{[]string{"multi-session", "temporal-reasoning"}, 1, "q2"},
		{nil, 10, "q1 q2 q3_abs"},
	}
	for _, tt := range tests {
		got, err := selectQuestions(qs, tt.types, tt.limit)
		var ids []string
		for _, q := range got {
			ids = append(ids, q.ID)
		}
		if err != nil || strings.Join(ids, " ") != tt.want {
			t.Errorf("selectQuestions(%v, %d) = %v, %v; want %s", tt.types, tt.limit, ids, err, tt.want)
		}
	}
}

// TestLongMemEvalInProcess runs the fixture in process with a two-point
// grid over two folds, and once through a server with --url.
func TestLongMemEvalInProcess(t *testing.T) {
	jsonOut := filepath.Join(t.TempDir(), "out.json")
	var out, errOut bytes.Buffer
	args := []string{"longmemeval", "--data", lmeFixture, "--k", "1,10", "--grid", "thread_weight=1,0", "--folds", "2", "--json", jsonOut}
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("run: %v\n%s", err, errOut.String())
	}
	for _, s := range []string{"turn recall@k", "kgmem@10", "bm25@10", "first search on a fresh namespace", "2-fold cross-validation", "defaults:       thread_weight=1"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	buf, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Result longmemeval.Result   `json:"result"`
		CV     longmemeval.CVResult `json:"cross_validation"`
	}
	if err := json.Unmarshal(buf, &got); err != nil {
		t.Fatal(err)
	}
	if o := got.Result.Recall.Overall(); o.Questions != 2 || o.Turn[0] != 0.75 || o.Turn[1] != 1 {
		t.Errorf("overall %+v, want turn recall 0.75 at 1 and 1 at 10", o)
	}
	if len(got.CV.Folds) != 2 || got.CV.K != 10 || got.CV.Pooled.Overall().Turn[0] != 1 {
		t.Errorf("cross-validation %+v", got.CV)
	}

	srv, closeAPI, err := apitest.New(t.TempDir(), api.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAPI()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	out.Reset()
	if err := run(context.Background(), []string{"longmemeval", "--data", lmeFixture, "--url", hs.URL, "--types", "multi-session"}, &out, &errOut); err != nil {
		t.Fatalf("run --url: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "LongMemEval ("+hs.URL) || !strings.Contains(out.String(), "1 questions scored") {
		t.Errorf("--url output:\n%s", out.String())
	}
}

// TestApplyParamWeightZeroIsOff: a weight of 0 in a grid switches the
// retriever off, as the server's flags do; the engine reads a 0 option as
// "the default", so before, thread_weight=0 ran the default weight.
func TestApplyParamWeightZeroIsOff(t *testing.T) {
	for _, name := range []string{"thread_weight", "speaker_weight", "graph_weight"} {
		var o memory.SearchOptions
		if err := applyParam(&o, name, 0); err != nil {
			t.Fatal(err)
		}
		if o.ThreadWeight+o.SpeakerWeight+o.GraphWeight != -1 {
			t.Errorf("%s=0 gives %+v, want that weight -1 (off)", name, o)
		}
	}
	opts, err := gridOptions(memory.HashingSearchOptions(), parseGridMust(t, "thread_weight=0;mmr_lambda=0.5"), []float64{0, 0.5})
	if err != nil || opts.ThreadWeight != -1 || opts.MMRLambda != 0.5 || opts.VectorWeight != memory.HashingVectorWeight || opts.RRFK != memory.DefaultSearchOptions().RRFK {
		t.Errorf("gridOptions = %+v, %v", opts, err)
	}
}

func parseGridMust(t *testing.T, s string) locomo.Grid {
	t.Helper()
	grid, err := parseGrid(s)
	if err != nil {
		t.Fatal(err)
	}
	return grid
}
