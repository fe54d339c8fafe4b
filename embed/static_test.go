package embed

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// staticModelDir is the installed static model the data-gated tests use:
// $KGMEM_STATIC_MODEL; they skip when it is unset.
func staticModelDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("KGMEM_STATIC_MODEL")
	if dir == "" {
		t.Skip("KGMEM_STATIC_MODEL is not set (scripts/embedder.sh install; then point it at the printed directory)")
	}
	return dir
}

// writeStaticModel writes a model directory as scripts/embedder.sh does.
func writeStaticModel(t *testing.T, dir string, cfg StaticConfig, vocab []string, rows [][]float32) {
	t.Helper()
	if err := WriteStatic(dir, cfg, vocab, rows); err != nil {
		t.Fatal(err)
	}
}

// TestStaticSynthetic loads a tiny model from disk and checks that a
// text's vector is the normalised mean of its known tokens' rows.
func TestStaticSynthetic(t *testing.T) {
	dir := t.TempDir()
	vocab := []string{"[PAD]", "[UNK]", "dog", "cat", "##s", "the"}
	rows := [][]float32{{0, 0, 0}, {9, 9, 9}, {1, 0, 0}, {0, 1, 0}, {0, 0, 2}, {1, 1, 1}}
	writeStaticModel(t, dir, StaticConfig{Name: "tiny-3", Dimension: 3, UnkToken: "[UNK]"}, vocab, rows)
	s, err := LoadStatic(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "tiny-3" || s.Dimension() != 3 {
		t.Fatalf("Name, Dimension = %q, %d", s.Name(), s.Dimension())
	}
	inv2, inv3 := float32(1/math.Sqrt2), float32(1/math.Sqrt(3))
	tests := []struct {
		text string
		want []float32
	}{
		{"dog", []float32{1, 0, 0}},
		{"Dog, cat!", []float32{inv2, inv2, 0}}, // punctuation has no row: unknown, left out
		{"dogs", []float32{1 / float32(math.Sqrt(5)), 0, 2 / float32(math.Sqrt(5))}},
		{"the zebra", []float32{inv3, inv3, inv3}}, // "zebra" is [UNK], left out
		{"zebra", []float32{0, 0, 0}},              // nothing known: the zero vector
		{"", []float32{0, 0, 0}},
	}
	texts := make([]string, len(tests))
	for i, tt := range tests {
		texts[i] = tt.text
	}
	got, err := s.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		for j := range tt.want {
			if math.Abs(float64(got[i][j]-tt.want[j])) > 1e-3 {
				t.Errorf("Embed(%q) = %v, want %v", tt.text, got[i], tt.want)
				break
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Embed(ctx, texts); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a cancelled context: %v", err)
	}
}

// TestLoadStaticErrors checks that a missing model names the missing file
// (wrapping ErrNoModel) and that an inconsistent one is refused.
func TestLoadStaticErrors(t *testing.T) {
	vocab := []string{"[PAD]", "[UNK]", "dog"}
	rows := [][]float32{{0, 0}, {0, 0}, {1, 0}}
	tests := []struct {
		name    string
		prepare func(dir string)
		noModel bool
		msg     string
	}{
		{"empty directory", func(dir string) {}, true, StaticConfigFile},
		{"no vectors", func(dir string) {
			writeStaticModel(t, dir, StaticConfig{Name: "m", Dimension: 2}, vocab, rows)
			os.Remove(filepath.Join(dir, StaticVectorsFile))
		}, true, StaticVectorsFile},
		{"dimension mismatch", func(dir string) {
			writeStaticModel(t, dir, StaticConfig{Name: "m", Dimension: 2}, vocab, rows)
			os.WriteFile(filepath.Join(dir, StaticConfigFile), []byte(`{"name":"m","dimension":3}`), 0o644)
		}, false, "dimension 3"},
		{"too few rows", func(dir string) {
			writeStaticModel(t, dir, StaticConfig{Name: "m", Dimension: 2}, vocab, rows)
			os.WriteFile(filepath.Join(dir, StaticVocabFile), []byte(strings.Join(append(vocab, "cat"), "\n")), 0o644)
		}, false, "rows"},
		{"not safetensors", func(dir string) {
			writeStaticModel(t, dir, StaticConfig{Name: "m", Dimension: 2}, vocab, rows)
			os.WriteFile(filepath.Join(dir, StaticVectorsFile), []byte("garbage!!"), 0o644)
		}, false, "header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.prepare(dir)
			_, err := LoadStatic(dir)
			if err == nil {
				t.Fatal("LoadStatic succeeded")
			}
			if errors.Is(err, ErrNoModel) != tt.noModel || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("LoadStatic: %v; want ErrNoModel %v and a message naming %q", err, tt.noModel, tt.msg)
			}
		})
	}
}

// TestStaticMatchesReference compares the installed model's vectors with
// those computed in numpy from the same files
// (testdata/static_reference.json, written by scripts/embedder/reference.py):
// every cosine above 0.999.
func TestStaticMatchesReference(t *testing.T) {
	s, err := LoadStatic(staticModelDir(t))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/static_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Model     string `json:"model"`
		Sentences []struct {
			Text   string    `json:"text"`
			Vector []float32 `json:"vector"`
		} `json:"sentences"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if ref.Model != s.Name() {
		t.Skipf("reference is for %s, the installed model is %s", ref.Model, s.Name())
	}
	texts := make([]string, len(ref.Sentences))
	for i, r := range ref.Sentences {
		texts[i] = r.Text
	}
	got, err := s.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range ref.Sentences {
		var dot, nr, ng float64
		for j := range r.Vector {
			dot += float64(r.Vector[j]) * float64(got[i][j])
			nr += float64(r.Vector[j]) * float64(r.Vector[j])
			ng += float64(got[i][j]) * float64(got[i][j])
		}
		if nr == 0 && ng == 0 {
			continue
		}
		if cos := dot / math.Sqrt(nr*ng); !(cos > 0.999) {
			t.Errorf("%q: cosine %.5f to the reference", r.Text, cos)
		}
	}
}

// BenchmarkEmbed measures single-text embedding of chat-sized messages by
// the hashing embedder and, when KGMEM_STATIC_MODEL is set, the static one.
func BenchmarkEmbed(b *testing.B) {
	msgs := []string{
		"Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
		"Melanie: That's awesome! What did you paint last weekend? a photo of a sunset over a lake",
		"I'm thinking of adopting a dog named Oscar - he's a golden retriever, and the kids love him already.",
		"We went camping at the beach with the kids and roasted marshmallows; it rained on the second night.",
	}
	run := func(b *testing.B, e interface {
		Embed(context.Context, []string) ([][]float32, error)
	}) {
		ctx := context.Background()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := e.Embed(ctx, msgs[i%len(msgs):i%len(msgs)+1]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("hashing", func(b *testing.B) { run(b, NewHashing(0)) })
	b.Run("static", func(b *testing.B) {
		s, err := LoadStatic(staticModelDir(b))
		if err != nil {
			b.Fatal(err)
		}
		run(b, s)
	})
}

// BenchmarkLoadStatic measures loading the installed static model
// (KGMEM_STATIC_MODEL): time and bytes allocated per load.
func BenchmarkLoadStatic(b *testing.B) {
	dir := staticModelDir(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadStatic(dir); err != nil {
			b.Fatal(err)
		}
	}
}
