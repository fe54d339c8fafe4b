package embed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWordPieceSynthetic checks the tokenizer's rules on a tiny vocabulary.
func TestWordPieceSynthetic(t *testing.T) {
	vocab := strings.Join([]string{"[PAD]", "[UNK]", "un", "##aff", "##able", "aff", "run", "##ning", ",", "!", "'", "s", "cafe", "日", "本", "a", "##a", "\u0307", "i"}, "\n")
	w, err := NewWordPiece(strings.NewReader(vocab), "[UNK]")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want []int32
	}{
		{"unaffable", []int32{2, 3, 4}},
		{"UNAFFABLE running", []int32{2, 3, 4, 6, 7}},
		{"running,run!", []int32{6, 7, 8, 6, 9}},
		{"run's", []int32{6, 10, 11}},
		{"Café", []int32{12}},
		{"日本", []int32{13, 14}},
		{"unrun", []int32{1}},        // "##run" is not in the vocabulary: the whole word is unknown
		{"xyz run", []int32{1, 6}},   // unknown word, then a known one
		{"run\u200brun", []int32{1}}, // U+200B (Cf) is dropped: "runrun" needs "##run", which is missing
		{"", nil},
		{"  \t\n ", nil},
		{strings.Repeat("a", 100), append([]int32{15}, slices.Repeat([]int32{16}, 99)...)},
		{strings.Repeat("a", 101), []int32{1}},
		{"İ", []int32{18}}, // decomposed to I + U+0307, the mark stripped, then lower-cased
	}
	for _, tt := range tests {
		if got := w.Tokenize(nil, tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Tokenize(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	if _, err := NewWordPiece(strings.NewReader("a\nb\n"), "[UNK]"); err == nil {
		t.Error("a vocabulary without [UNK] was accepted")
	}
}

// TestWordPieceMatchesReference compares the tokenizer's ids with those of
// Hugging Face tokenizers for all-MiniLM-L6-v2's tokenizer.json
// (testdata/wordpiece_reference.json, written by
// scripts/embedder/reference.py). The vocabulary comes from the installed
// model; the test skips without it (KGMEM_STATIC_MODEL, or
// scripts/embedder.sh install).
func TestWordPieceMatchesReference(t *testing.T) {
	dir := staticModelDir(t)
	f, err := os.Open(filepath.Join(dir, StaticVocabFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewWordPiece(f, "[UNK]")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/wordpiece_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Text string  `json:"text"`
		IDs  []int32 `json:"ids"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 40 {
		t.Fatalf("only %d reference sentences", len(cases))
	}
	for _, c := range cases {
		if got := w.Tokenize(nil, c.Text); !slices.Equal(got, c.IDs) && !(len(got) == 0 && len(c.IDs) == 0) {
			t.Errorf("Tokenize(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
		}
	}
}
