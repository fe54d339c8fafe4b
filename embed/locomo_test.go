package embed

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/testenv"
)

type locomoTurn struct {
	Speaker, DiaID, Text, Caption string
}

type locomoQA struct {
	Question string
	Evidence []string
	Category int
}

// loadLocomo reads one conversation's turns and its questions of categories 1–4.
func loadLocomo(t *testing.T, path string) ([]locomoTurn, []locomoQA) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var turns []locomoTurn
	for n := 1; ; n++ {
		rawSession, ok := doc["session_"+itoa(n)]
		if !ok {
			break
		}
		var session []struct {
			Speaker string `json:"speaker"`
			DiaID   string `json:"dia_id"`
			Text    string `json:"text"`
			Caption string `json:"blip_caption"`
		}
		if err := json.Unmarshal(rawSession, &session); err != nil {
			t.Fatalf("%s session %d: %v", path, n, err)
		}
		for _, s := range session {
			turns = append(turns, locomoTurn{s.Speaker, s.DiaID, s.Text, s.Caption})
		}
	}
	var qas []struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	}
	if err := json.Unmarshal(doc["qa"], &qas); err != nil {
		t.Fatalf("%s qa: %v", path, err)
	}
	var out []locomoQA
	for _, q := range qas {
		if q.Category >= 1 && q.Category <= 4 && len(q.Evidence) > 0 {
			out = append(out, locomoQA{q.Question, q.Evidence, q.Category})
		}
	}
	return turns, out
}

func itoa(n int) string { return strconv.Itoa(n) }

// locomoFiles are the LoCoMo development conversations ($KGMEM_LOCOMO_DATA;
// the test skips without it).
func locomoFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testenv.LoCoMoData(t), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// locomoRecall ranks every turn of each LoCoMo conversation by cosine to
// each question under e and returns evidence recall@5 and @10 (macro over
// questions, categories 1–4), the measure of bench/locomo.
func locomoRecall(t *testing.T, e kgmem.Embedder, files []string) (r5, r10 float64, questions int) {
	t.Helper()
	ctx := context.Background()
	var sum5, sum10 float64
	for _, f := range files {
		turns, qas := loadLocomo(t, f)
		texts := make([]string, len(turns))
		for i, tr := range turns {
			texts[i] = docText(tr)
		}
		dv, err := e.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		qtexts := make([]string, len(qas))
		for i, q := range qas {
			qtexts[i] = q.Question
		}
		qv, err := e.Embed(ctx, qtexts)
		if err != nil {
			t.Fatal(err)
		}
		type ranked struct {
			id    string
			score float64
		}
		for i, q := range qas {
			rs := make([]ranked, len(turns))
			for j := range turns {
				rs[j] = ranked{turns[j].DiaID, float64(dot32(qv[i], dv[j]))}
			}
			slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(b.score, a.score) })
			recall := func(k int) float64 {
				found := 0
				for _, e := range q.Evidence {
					if slices.ContainsFunc(rs[:k], func(r ranked) bool { return r.id == e }) {
						found++
					}
				}
				return float64(found) / float64(len(q.Evidence))
			}
			sum5 += recall(5)
			sum10 += recall(10)
			questions++
		}
	}
	return sum5 / float64(questions), sum10 / float64(questions), questions
}

// TestHashingLoCoMoEvidenceRecall measures the hashing embedder alone on
// LoCoMo (locomoRecall). The data set README's BM25 anchor is 0.513 / 0.591.
// KGMEM_LOCOMO_DIM sets another dimension (the floors apply to the default).
func TestHashingLoCoMoEvidenceRecall(t *testing.T) {
	files := locomoFiles(t)
	dim := 0
	if v := os.Getenv("KGMEM_LOCOMO_DIM"); v != "" {
		var err error
		if dim, err = strconv.Atoi(v); err != nil {
			t.Fatalf("KGMEM_LOCOMO_DIM=%q: %v", v, err)
		}
	}
	h := NewHashing(dim)
	r5, r10, questions := locomoRecall(t, h, files)
	t.Logf("%s evidence recall over %d questions: @5 = %.3f, @10 = %.3f (BM25 anchor 0.513 / 0.591)", h.Name(), questions, r5, r10)
	// Floors a little under the measured 0.333 / 0.407 at dimension 256.
	if dim == 0 && (r5 < 0.32 || r10 < 0.39) {
		t.Errorf("evidence recall @5 %.3f / @10 %.3f fell below the floor 0.32 / 0.39", r5, r10)
	}
}

// TestStaticLoCoMoEvidenceRecall measures the installed static model alone
// on LoCoMo (locomoRecall): 0.421 / 0.528 for minilm-l6-static-256, against
// the hashing embedder's 0.334 / 0.407 (and 0.390 / 0.502 for the full
// all-MiniLM-L6-v2 transformer, mean-pooled, computed in numpy).
func TestStaticLoCoMoEvidenceRecall(t *testing.T) {
	files := locomoFiles(t)
	s, err := LoadStatic(staticModelDir(t))
	if err != nil {
		t.Fatal(err)
	}
	r5, r10, questions := locomoRecall(t, s, files)
	t.Logf("%s evidence recall over %d questions: @5 = %.3f, @10 = %.3f (BM25 anchor 0.513 / 0.591)", s.Name(), questions, r5, r10)
	if s.Name() == "minilm-l6-static-256" && (r5 < 0.40 || r10 < 0.50) {
		t.Errorf("evidence recall @5 %.3f / @10 %.3f fell below the floor 0.40 / 0.50", r5, r10)
	}
}

// dot32 is the inner product; Hashing vectors are unit length (or zero).
func dot32(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// docText is what a turn is embedded as: the speaker's name, the text and
// the caption of a shared photo, as the BM25 anchor indexes it.
func docText(tr locomoTurn) string { return tr.Speaker + ": " + tr.Text + " " + tr.Caption }
