package embed

import (
	"context"
	"fmt"
	"math"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/kgmem/kgmem"
	"github.com/kljensen/snowball/english"
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
	// words holds what each recently seen word contributes, so that a
	// word's stem and character n-grams are computed once, not at every
	// occurrence (they were half of the embedder's time).
	words   *lru.Cache[string, wordFeatures]
	scratch sync.Pool // *scratch
}

// feature is one distinct feature of a text, with its weight per
// occurrence (that of its first) and its occurrence count.
type feature struct {
	key    uint64
	weight float64
	tf     int
}

// scratch is the working memory of embedding one text, pooled: a text's
// features, their index by key and the accumulator were a tenth of the
// bytes a server allocated under load.
type scratch struct {
	feats []feature // distinct features in first-seen order
	// slots finds a feature in feats by its key: open addressing from the
	// key's low bits (keys are hashes already), each slot the feature's
	// position plus one, 0 when empty, and at most half of them used. A Go
	// map in its place, rehashing every key, was half of an embedding.
	slots []int32
	acc   []float64
}

// minSlots is the table a scratch starts with: a chat message's features
// fit without growing it.
const minSlots = 512

// reset empties sc for a text, with an accumulator of dim zeros.
func (sc *scratch) reset(dim int) {
	sc.feats = sc.feats[:0]
	if len(sc.slots) == 0 || len(sc.slots) > 16*minSlots {
		// A long text grew the table: the next, likely short, need not
		// clear all of it.
		sc.slots = make([]int32, minSlots)
	} else {
		clear(sc.slots)
	}
	if len(sc.acc) != dim {
		sc.acc = make([]float64, dim)
	}
	clear(sc.acc)
}

// add counts one occurrence of the feature key of weight weight: a new one
// goes at the end of feats, a known one gets its count raised (its weight
// is a function of its key).
func (sc *scratch) add(key uint64, weight float64) {
	slot := sc.slot(key)
	if p := sc.slots[slot]; p != 0 {
		sc.feats[p-1].tf++
		return
	}
	sc.feats = append(sc.feats, feature{key: key, weight: weight, tf: 1})
	sc.slots[slot] = int32(len(sc.feats))
	if 2*len(sc.feats) > len(sc.slots) {
		sc.slots = make([]int32, 2*len(sc.slots))
		for i, f := range sc.feats {
			sc.slots[sc.slot(f.key)] = int32(i + 1)
		}
	}
}

// slot returns the slot holding key, or the empty one where it goes.
func (sc *scratch) slot(key uint64) uint64 {
	mask := uint64(len(sc.slots) - 1)
	for i := key & mask; ; i = (i + 1) & mask {
		if p := sc.slots[i]; p == 0 || sc.feats[p-1].key == key {
			return i
		}
	}
}

// wordFeatures is what one word (its folded surface form) contributes
// wherever it occurs: its stem, the key of its unigram, and the keys of its
// character n-grams with the weight of each.
type wordFeatures struct {
	stem       string
	unigram    uint64
	grams      []uint64
	gramWeight float64
}

// wordCacheSize bounds the words a Hashing embedder keeps features of
// (about 200 bytes each): a conversation's vocabulary, not an attacker's.
const wordCacheSize = 50_000

var _ kgmem.Embedder = (*Hashing)(nil)

// NewHashing returns a hashing embedder of dimension dim (DefaultHashingDim
// when dim <= 0).
func NewHashing(dim int) *Hashing {
	if dim <= 0 {
		dim = DefaultHashingDim
	}
	words, err := lru.New[string, wordFeatures](wordCacheSize)
	if err != nil {
		panic(err) // only for a size <= 0
	}
	h := &Hashing{dim: dim, p: defaultParams(), words: words}
	h.scratch.New = func() any { return new(scratch) }
	return h
}

// features returns what the word with folded surface form surface
// contributes, from the cache or computed.
func (h *Hashing) features(surface string) wordFeatures {
	if f, ok := h.words.Get(surface); ok {
		return f
	}
	f := wordFeatures{stem: english.Stem(surface, false)}
	f.unigram = fnv1a(kindUnigram, f.stem)
	if h.p.charWeight != 0 {
		grams := charGrams(surface, h.p.minGram, h.p.maxGram)
		f.grams = make([]uint64, len(grams))
		for i, g := range grams {
			f.grams[i] = fnv1a(kindChar, g)
		}
		f.gramWeight = h.p.charWeight / math.Sqrt(float64(len(grams)))
	}
	h.words.Add(surface, f)
	return f
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
	words := words(text)
	kept := make([]string, 0, len(words))
	for _, w := range words {
		if !isStopWord(w) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 { // only stop words: better them than nothing
		kept = words
	}
	sc := h.scratch.Get().(*scratch)
	defer h.scratch.Put(sc)
	sc.reset(h.dim)
	var prev wordFeatures
	for i, w := range kept {
		f := h.features(w)
		sc.add(f.unigram, h.p.unigramWeight)
		if i > 0 && h.p.bigramWeight != 0 {
			sc.add(fnv1a(kindBigram, prev.stem+" "+f.stem), h.p.bigramWeight)
		}
		for _, g := range f.grams {
			sc.add(g, f.gramWeight)
		}
		prev = f
	}
	acc := sc.acc
	for _, f := range sc.feats {
		v := f.weight // 1 + log(tf) is exactly 1 for the many features seen once
		if f.tf > 1 {
			v *= 1 + math.Log(float64(f.tf))
		}
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
