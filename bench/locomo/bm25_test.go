package locomo

import (
	"math"
	"slices"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Caroline: I went to the LGBTQ support group yesterday!", []string{"caroline", "went", "lgbtq", "support", "group", "yesterday"}},
		{"What's Melanie's favourite book?", []string{"melanie", "favourite", "book"}},
		{"Café au lait, 3 times_a day", []string{"café", "au", "lait", "3", "times_a", "day"}},
		{"The and of it", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := Tokenize(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestBM25Scores(t *testing.T) {
	docs := []string{
		"apple banana",        // 2 tokens
		"apple apple cherry",  // 3 tokens
		"cherry date fig fig", // 4 tokens
		"grape",               // 1 token
	}
	ix := NewBM25(docs)
	if ix.Len() != 4 {
		t.Fatalf("Len = %d", ix.Len())
	}
	avg := 10.0 / 4
	idf := func(df float64) float64 { return math.Log((4 - df + 0.5) / (df + 0.5)) }
	term := func(tf, dl, df float64) float64 {
		return idf(df) * tf * 2.2 / (tf + 1.2*(1-0.75+0.75*dl/avg))
	}
	got := ix.Scores("Apple? the cherry")
	want := []float64{term(1, 2, 2), term(2, 3, 2) + term(1, 3, 2), term(1, 4, 2), 0}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("score[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	// A term in half of the documents has idf ln(2.5/2.5) = 0; one in 3 of 4 is negative.
	if v := ix.IDF("apple"); v != 0 {
		t.Errorf("IDF(apple) = %v, want 0", v)
	}
	if v := NewBM25([]string{"a1", "a1", "a1 b", "c"}).IDF("a1"); v >= 0 {
		t.Errorf("IDF of a term in 3 of 4 docs = %v, want negative", v)
	}
	// A repeated query term counts twice.
	if a, b := ix.Scores("fig")[2], ix.Scores("fig fig")[2]; math.Abs(b-2*a) > 1e-12 {
		t.Errorf("repeated query term: %v, want 2×%v", b, a)
	}
}

func TestBM25Search(t *testing.T) {
	ix := NewBM25([]string{"red fox", "blue fox jumps", "red red fox", "green", "red"})
	tests := []struct {
		name  string
		query string
		limit int
		keep  func(int) bool
		want  []int
	}{
		// Documents without a query term score 0 and still rank, in doc order.
		{"all docs ranked, ties in doc order", "jumps", 5, nil, []int{1, 0, 2, 3, 4}},
		// "red" is in 3 of 5 docs: negative idf, so plain Okapi ranks its docs last,
		// the one whose "red" weighs least (tf 1 in a 2-token doc) first.
		{"negative idf", "red green", 5, nil, []int{3, 1, 0, 2, 4}},
		{"limit", "jumps", 2, nil, []int{1, 0}},
		{"filter", "jumps", 5, func(d int) bool { return d%2 == 0 }, []int{0, 2, 4}},
		{"empty query keeps doc order", "the", 3, nil, []int{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ix.Search(tt.query, tt.limit, tt.keep); !slices.Equal(got, tt.want) {
				t.Errorf("Search(%q) = %v, want %v", tt.query, got, tt.want)
			}
		})
	}
	if got := NewBM25(nil).Search("x", 5, nil); len(got) != 0 {
		t.Errorf("empty index returned %v", got)
	}
}
