package embed

import (
	"context"
	"fmt"
	"math"

	"github.com/kgmem/kgmem"
)

// DefaultHashingDim is the dimension NewHashing uses when given 0.
const DefaultHashingDim = 256

// params are the feature weights, relative to a word unigram, and the
// character n-gram lengths. Character n-grams of a word share charWeight
// between them, so a long word does not outweigh a short one.
type params struct {
	unigramWeight, bigramWeight, charWeight float64
	minGram, maxGram                        int
}

// defaultParams were chosen on LoCoMo evidence recall (locomo_test.go):
// bigrams rarely match how questions are phrased and mostly add hash
// collisions, so they weigh little; character n-grams weigh as much as the
// word itself. Variations within ±0.3 of these weights moved recall@5 by
// about ±0.01.
func defaultParams() params {
	return params{unigramWeight: 1, bigramWeight: 0.2, charWeight: 1, minGram: 3, maxGram: 5}
}

// Feature kinds, hashed in so equal strings of different kinds differ.
const (
	kindUnigram byte = 'w'
	kindBigram  byte = 'b'
	kindChar    byte = 'c'
)

// Hashing is the deterministic feature-hashing embedder (see the package
// doc for what it can and cannot do). It is safe for concurrent use.
type Hashing struct {
	dim int
	p   params
}

var _ kgmem.Embedder = (*Hashing)(nil)

// NewHashing returns a hashing embedder of dimension dim (DefaultHashingDim
// when dim <= 0).
func NewHashing(dim int) *Hashing {
	if dim <= 0 {
		dim = DefaultHashingDim
	}
	return &Hashing{dim: dim, p: defaultParams()}
}

// Dimension returns the length of every vector.
func (h *Hashing) Dimension() int { return h.dim }

// Name identifies the embedder and its dimension, for example "hash-v1-256".
func (h *Hashing) Name() string { return fmt.Sprintf("hash-v1-%d", h.dim) }

// Embed returns one L2-normalised vector per text, in order.
func (h *Hashing) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("hashing embed: %w", err)
			}
		}
		out[i] = h.vector(t)
	}
	return out, nil
}

// vector embeds one text.
func (h *Hashing) vector(text string) []float32 {
	words := tokenize(text)
	kept := make([]word, 0, len(words))
	for _, w := range words {
		if !isStopWord(w.surface) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 { // only stop words: better them than nothing
		kept = words
	}
	// Distinct features in first-seen order, with their weight per
	// occurrence and their occurrence count.
	type feature struct {
		key    uint64
		weight float64
		tf     int
	}
	feats := make([]feature, 0, 32*len(kept))
	index := make(map[uint64]int, 32*len(kept))
	add := func(kind byte, s string, weight float64) {
		key := fnv1a(kind, s)
		if i, ok := index[key]; ok {
			feats[i].tf++
			return
		}
		index[key] = len(feats)
		feats = append(feats, feature{key: key, weight: weight, tf: 1})
	}
	for i, w := range kept {
		add(kindUnigram, w.stem, h.p.unigramWeight)
		if i > 0 && h.p.bigramWeight != 0 {
			add(kindBigram, kept[i-1].stem+" "+w.stem, h.p.bigramWeight)
		}
		if h.p.charWeight == 0 {
			continue
		}
		grams := charGrams(w.surface, h.p.minGram, h.p.maxGram)
		per := h.p.charWeight / math.Sqrt(float64(len(grams)))
		for _, g := range grams {
			add(kindChar, g, per)
		}
	}
	acc := make([]float64, h.dim)
	for _, f := range feats {
		v := f.weight * (1 + math.Log(float64(f.tf)))
		if f.key>>63 == 1 {
			v = -v
		}
		acc[f.key%uint64(h.dim)] += v
	}
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	vec := make([]float32, h.dim)
	if norm == 0 {
		return vec
	}
	norm = math.Sqrt(norm)
	for i, x := range acc {
		vec[i] = float32(x / norm)
	}
	return vec
}

// charGrams returns the character n-grams (minGram–maxGram runes) of w with
// boundary marks, "<" and ">", as substrings of one padded string. A word
// shorter than minGram yields itself.
func charGrams(w string, minGram, maxGram int) []string {
	padded := "<" + w + ">"
	starts := make([]int, 0, len(padded)+1) // byte offset of each rune, then the end
	for i := range padded {
		starts = append(starts, i)
	}
	runes := len(starts)
	starts = append(starts, len(padded))
	if runes <= minGram {
		return []string{padded}
	}
	grams := make([]string, 0, (maxGram-minGram+1)*runes)
	for n := minGram; n <= maxGram; n++ {
		for i := 0; i+n <= runes; i++ {
			grams = append(grams, padded[starts[i]:starts[i+n]])
		}
	}
	return grams
}

// fnv1a is 64-bit FNV-1a over kind and s, finished with the MurmurHash3
// avalanche so that both the low bits (the bucket) and the top bit (the sign)
// depend on every input byte.
func fnv1a(kind byte, s string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	h ^= uint64(kind)
	h *= prime
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
