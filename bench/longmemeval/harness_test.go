package longmemeval

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	kgclient "github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/internal/apitest"
	"github.com/kgmem/kgmem/memory"
)

// TestHarnessFixture runs the fixture in process end to end. By hand: q1's
// evidence s1:0 is the only turn naming the cat and the adoption, so both
// kgmem and BM25 rank it first; q2's two evidence turns (a1:0, a2:0) are
// the only ones about bicycle repairs, so either comes first and the other
// second. At k 1: turn recall (1 + 1/2)/2 = 0.75, recall_any 1, recall_all
// (1 + 0)/2 = 0.5; at k 10 every turn of the small haystacks is returned.
func TestHarnessFixture(t *testing.T) {
	ctx := context.Background()
	h, err := Open(ctx, t.TempDir(), loadFixture(t), Config{Ks: []int{1, 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	d := h.Data()
	if want := (DataStats{Questions: 3, Abstention: 1, Scored: 2, TurnScored: 2, Sessions: 5, Messages: 10, EvidenceTurns: 3, EmptyTurns: 1, RepeatedSessions: 1}); d != want {
		t.Errorf("data %+v, want %+v", d, want)
	}
	if in := h.Ingest(); in.Messages != 10 || in.Episodes != 10 || in.Requests != 2 || in.PerStream <= 0 {
		t.Errorf("ingest %+v: want 10 messages in 2 writes (one per question)", in)
	}
	if f := h.Fresh(); f.First.Searches != 2 || f.Repeat.Searches != 2 || f.First.P50 <= 0 {
		t.Errorf("fresh latency %+v", f)
	}
	res, err := h.Result(ctx, HashingSearchOptions(), []int{1, 10})
	if err != nil {
		t.Fatal(err)
	}
	for name, tab := range map[string]Table{"kgmem": res.Recall, "bm25": res.Baseline} {
		o := tab.Overall()
		if !slices.Equal(o.Turn, []float64{0.75, 1}) || !slices.Equal(o.Any, []float64{1, 1}) || !slices.Equal(o.All, []float64{0.5, 1}) || o.Questions != 2 {
			t.Errorf("%s overall %+v, want turn 0.75/1, any 1/1, all 0.5/1", name, o)
		}
		if r, ok := tab.Row("multi-session"); !ok || r.Turn[0] != 0.5 || r.All[0] != 0 {
			t.Errorf("%s multi-session %+v", name, r)
		}
	}
	if q := res.Questions[1]; q.QuestionID != "q2" || len(q.Retrieved) != 6 || !slices.Contains([]string{"a1:0", "a2:0"}, q.Retrieved[0]) {
		t.Errorf("q2 retrieved %+v", q)
	}
	var out bytes.Buffer
	if err := WriteReport(&out, res); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"turn recall@k", "session recall_all@k", "single-session-user", "0.750", "first search on a fresh namespace", "1 empty turns skipped", "1 repeated sessions"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, out.String())
		}
	}

	// The abstention question was not ingested.
	eng, err := h.Engine(HashingSearchOptions())
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := EngineMemory(eng).Search(ctx, "bench/longmemeval/q3_abs", "motorbike", 10); err != nil || len(ids) != 0 {
		t.Errorf("abstention namespace search: %v %v, want nothing", ids, err)
	}
	// Another point on the same stores: the thread retriever off changes
	// nothing here, and the results come at the cut-off asked for.
	off := HashingSearchOptions()
	off.ThreadWeight = -1
	qs, err := h.Evaluate(ctx, off, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || len(qs[0].Retrieved) != 1 || qs[0].Retrieved[0] != "s1:0" || qs[0].Scores.Turn != 1 || qs[1].Scores.Turn != 0.5 {
		t.Errorf("Evaluate(thread off, 1) = %+v", qs)
	}
	if b := h.Baseline(1); b[0].Retrieved[0] != "s1:0" || b[1].Scores.Turn != 0.5 {
		t.Errorf("Baseline(1) = %+v", b)
	}
	if _, err := h.Evaluate(ctx, off, 0); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("Evaluate at k 0: %v, want ErrInvalid", err)
	}
}

// TestRunThroughServer runs the fixture against a real server through the
// Go client: every turn of the small haystacks comes back at k 10, and
// running twice gives the same (the namespaces are purged first).
func TestRunThroughServer(t *testing.T) {
	srv, closeAPI, err := apitest.New(t.TempDir(), api.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAPI()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	client, err := kgclient.New(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := Run(context.Background(), ClientMemory(client), hs.URL, loadFixture(t), Config{Ks: []int{10}, Batch: 3})
		if err != nil {
			t.Fatal(err)
		}
		o := res.Recall.Overall()
		if o.Turn[0] != 1 || o.Any[0] != 1 || o.All[0] != 1 || res.Ingest.Episodes != 10 || res.Target != hs.URL {
			t.Errorf("overall %+v, ingest %+v", o, res.Ingest)
		}
		// Batch 3 over q1 (2+2 turns) and q2 (2+2+2): writes [2,1][1] and
		// [2,1][1,2]; through the server one request per session in a write.
		if res.Ingest.Requests != 7 {
			t.Errorf("%d requests, want 7", res.Ingest.Requests)
		}
	}
}

// TestHarnessRealData runs a few questions of the development split, from
// $KGMEM_LONGMEMEVAL_DATA (the .json.gz or its folder).
func TestHarnessRealData(t *testing.T) {
	path := os.Getenv("KGMEM_LONGMEMEVAL_DATA")
	if path == "" {
		t.Skip("set KGMEM_LONGMEMEVAL_DATA to the LongMemEval .json.gz (or its folder, e.g. ../shared/bench/longmemeval) to run")
	}
	qs, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	qs = qs[:min(8, len(qs))]
	ctx := context.Background()
	h, err := Open(ctx, filepath.Join(t.TempDir(), "stores"), qs, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	res, err := h.Result(ctx, memory.HashingSearchOptions(), []int{5, 10})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Data; d.Scored == 0 || d.Messages < 100*d.Scored || res.Ingest.Episodes != d.Messages {
		t.Fatalf("data %+v, ingest %+v", d, res.Ingest)
	}
	in := func(v float64) bool { return v >= 0 && v <= 1 && !math.IsNaN(v) }
	for _, tab := range []Table{res.Recall, res.Baseline} {
		for _, r := range tab.Rows {
			for i := range tab.Ks {
				if !in(r.Turn[i]) || !in(r.Any[i]) || !in(r.All[i]) {
					t.Errorf("row %+v out of [0, 1]", r)
				}
			}
		}
	}
	if b := res.Baseline.Overall(); b.Turn[1] <= 0 || b.Any[1] <= 0 {
		t.Errorf("BM25 overall %+v: finds nothing", b)
	}
	if k := res.Recall.Overall(); k.Turn[1] <= 0 || k.Turn[0] > k.Turn[1] {
		t.Errorf("kgmem overall %+v", k)
	}
	var out bytes.Buffer
	_ = WriteReport(&out, res)
	t.Logf("%s", out.String())
}
