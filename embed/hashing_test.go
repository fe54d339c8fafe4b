package embed_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/embed"
)

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}

func embedOne(t *testing.T, h *embed.Hashing, text string) []float32 {
	t.Helper()
	vs, err := h.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return vs[0]
}

func TestHashingShape(t *testing.T) {
	tests := []struct {
		dim, wantDim int
		wantName     string
	}{
		{0, 256, "hash-v1-256"},
		{-5, 256, "hash-v1-256"},
		{64, 64, "hash-v1-64"},
		{1024, 1024, "hash-v1-1024"},
	}
	for _, tt := range tests {
		h := embed.NewHashing(tt.dim)
		if h.Dimension() != tt.wantDim || h.Name() != tt.wantName {
			t.Errorf("NewHashing(%d): dim %d name %q, want %d %q", tt.dim, h.Dimension(), h.Name(), tt.wantDim, tt.wantName)
		}
		vs, err := h.Embed(context.Background(), []string{"Caroline went to the LGBTQ support group", "", "the of and"})
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 3 {
			t.Fatalf("got %d vectors for 3 texts", len(vs))
		}
		for i, v := range vs {
			if len(v) != tt.wantDim {
				t.Fatalf("vector %d has length %d, want %d", i, len(v), tt.wantDim)
			}
		}
		var norm float64
		for _, x := range vs[0] {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("dim %d: |v|² = %v, want 1", tt.wantDim, norm)
		}
		for _, x := range vs[1] {
			if x != 0 {
				t.Fatalf("empty text: got a non-zero vector")
			}
		}
		// A text of stop words only still embeds them rather than nothing.
		if cosine(vs[2], embedOne(t, h, "THE of, and!")) < 0.999 {
			t.Errorf("stop-word-only text is not embedded by its words")
		}
	}
}

func TestHashingDeterministic(t *testing.T) {
	a, b := embed.NewHashing(128), embed.NewHashing(128)
	text := "Melanie painted a sunrise over the lake in 2022."
	va, vb := embedOne(t, a, text), embedOne(t, b, text)
	for i := range va {
		if va[i] != vb[i] {
			t.Fatalf("component %d differs between two embedders: %v vs %v", i, va[i], vb[i])
		}
	}
}

// TestHashingSimilarity pins down what the embedder is for: lexical,
// morphological and typo overlap score high; unrelated text and synonyms low.
func TestHashingSimilarity(t *testing.T) {
	h := embed.NewHashing(0)
	tests := []struct {
		name     string
		a, b     string
		min, max float64
	}{
		{"identical", "Bob leads the ML team", "Bob leads the ML team", 0.999, 1.01},
		{"case, punctuation and stop words", "Bob leads the ML team.", "bob LEADS ml team", 0.999, 1.01},
		{"accents", "Café in Malmö", "cafe in malmo", 0.999, 1.01},
		{"possessive", "Caroline's painting", "Caroline painting", 0.999, 1.01},
		{"inflection", "she paints landscapes", "she painted a landscape", 0.6, 1},
		{"typo", "Stockholm restaurant", "Stokholm restaurant", 0.45, 1},
		{"typo in a lone word", "Stockholm", "Stokholm", 0.2, 1},
		{"shared name", "Caroline adopted a dog", "Caroline moved to Sweden", 0.2, 0.8},
		{"word order", "machine learning team", "team machine learning", 0.7, 1},
		{"unrelated", "Bob leads the ML team", "Melanie painted a sunrise", -0.25, 0.25},
		{"synonym (cannot)", "car", "automobile", -0.25, 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cosine(embedOne(t, h, tt.a), embedOne(t, h, tt.b))
			if got < tt.min || got > tt.max {
				t.Errorf("cosine(%q, %q) = %.3f, want in [%.2f, %.2f]", tt.a, tt.b, got, tt.min, tt.max)
			}
		})
	}
}

// TestHashingRetrieval checks the ranking a memory search needs: for each
// question the evidence message must be the nearest of the conversation.
func TestHashingRetrieval(t *testing.T) {
	h := embed.NewHashing(0)
	docs := []string{
		"I went to the LGBTQ support group yesterday and it was so powerful.",
		"Melanie: I painted a sunrise over the lake last week.",
		"We're thinking about adopting a child, I've been researching agencies.",
		"My kids love camping; we went to the beach campsite in July.",
		"I've been running every morning to train for the charity race.",
		"Caroline is studying counseling and mental health at the university.",
		"Our dog Luna just turned three and loves the park.",
	}
	queries := []struct {
		q    string
		want int
	}{
		{"When did Caroline go to the LGBTQ support group?", 0},
		{"What did Melanie paint?", 1},
		{"Is she researching adoption agencies?", 2},
		{"Where did the kids go camping?", 3},
		{"What race is she training for by running?", 4},
		{"What does Caroline study?", 5},
		{"How old is Luna the dog?", 6},
	}
	dv, err := h.Embed(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		qv := embedOne(t, h, q.q)
		best, bestScore := -1, -2.0
		for i, d := range dv {
			if s := cosine(qv, d); s > bestScore {
				best, bestScore = i, s
			}
		}
		if best != q.want {
			t.Errorf("%q: nearest is %q (%.3f), want %q (%.3f)", q.q, docs[best], bestScore, docs[q.want], cosine(qv, dv[q.want]))
		}
	}
}

func TestHashingCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := embed.NewHashing(0).Embed(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a cancelled context: %v, want context.Canceled", err)
	}
}

// BenchmarkHashing embeds chat-sized messages; ns/op is per text.
func BenchmarkHashing(b *testing.B) {
	h := embed.NewHashing(0)
	text := []string{"Hey Mel! I went to a LGBTQ support group yesterday and it was so powerful. The transgender stories were so inspiring!"}
	for b.Loop() {
		if _, err := h.Embed(context.Background(), text); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHashingV1IsPinned pins hash-v1's vectors of a few texts (every
// feature kind, folding, contractions, stop words only, empty) by checksum,
// embedded twice so the second pass comes from the word cache: stored
// vectors stay comparable with new ones only while this holds. A change
// that breaks it must change Name.
func TestHashingV1IsPinned(t *testing.T) {
	texts := []string{
		"Caroline's café — naïve résumé, don't can't 東京 Zürich",
		"Bob leads the ML team at Northwind since 2021.",
		"the of and",
		"",
		"O'Brien's 'quoted' it's LOL okay",
		longText(400),
	}
	h := embed.NewHashing(256)
	for pass := range 2 {
		vecs, err := h.Embed(t.Context(), texts)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.New()
		for _, v := range vecs {
			for _, x := range v {
				_ = binary.Write(sum, binary.LittleEndian, math.Float32bits(x))
			}
		}
		if got := hex.EncodeToString(sum.Sum(nil)); got != hashV1Pin {
			t.Fatalf("pass %d: vectors checksum %s, want %s", pass, got, hashV1Pin)
		}
	}
}

// longText is n distinct made-up words, some repeated: thousands of
// features, more than a scratch's first table holds.
func longText(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "w%dq%c ", i, 'a'+i%7)
		if i%5 == 0 {
			b.WriteString("repeated words again ")
		}
	}
	return b.String()
}

// hashV1Pin is the checksum TestHashingV1IsPinned expects.
const hashV1Pin = "b634a04071a4d87efab94ed660a100787a58e4663453971e6b3683c14ec97561"
