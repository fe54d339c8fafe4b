package memory

import (
	"time"

	"github.com/kgmem/kgmem"
)

// SearchOptions tune retrieval: the constants of the search pipeline
// (pipeline.go). Zero fields take DefaultSearchOptions; a negative weight
// switches its retriever off, a prior factor outside (0, 1) switches its
// prior off.
type SearchOptions struct {
	// RRFK is the k of reciprocal rank fusion: score = Σ weight / (k + rank).
	RRFK float64
	// Candidates is how many hits each retriever contributes per requested result.
	Candidates int
	// VectorWeight and TextWeight weigh the retrievers in the fusion.
	VectorWeight, TextWeight float64
	// ThreadWeight weighs the "thread" retriever: the episodes just before
	// and after the best episode hits in their threads (ThreadWindow places
	// on each side).
	ThreadWeight float64
	ThreadWindow int
	// SpeakerWeight weighs the "speaker" retriever: episodes said by someone
	// the query names.
	SpeakerWeight float64
	// GraphWeight weighs the "graph" retriever: facts within GraphDepth hops
	// of the entities the query names or the search found, following at most
	// GraphFanOut facts per entity.
	GraphWeight float64
	GraphDepth  int
	GraphFanOut int
	// CurrencyFactor multiplies the score of a fact that is not current
	// (ended or invalidated) when the question asks about the present (no
	// past tense, no time in it, no as_of): when retrievers tie, what is
	// true now comes first. 1 switches the prior off.
	CurrencyFactor float64
	// TimeFactor multiplies the score of a fact whose validity, or an
	// episode whose message time, falls outside the time a question names
	// ("in 2021", "last May", "two years ago"); a fact or an episode that
	// cannot be placed gets its square root. 1 switches the prior off.
	TimeFactor float64
	// WhenFactor multiplies, for a "when …?" question, the score of an
	// episode that states no time and of a fact without a validity: the
	// turns that date an event come first. 1 switches the prior off.
	WhenFactor float64
	// MMRLambda trades relevance (1) against diversity (0) when choosing
	// the results of each kind by maximal marginal relevance; 1 keeps the
	// fused order.
	MMRLambda float64
	// RerankCandidates is how many facts and episodes each go to the
	// reranker, when one is configured; RerankTimeout bounds its call.
	RerankCandidates int
	RerankTimeout    time.Duration
	// Timeout bounds one search end to end.
	Timeout time.Duration
	// RetrieverTimeout bounds each retriever: one that takes longer is
	// dropped with a warning and the others answer.
	RetrieverTimeout time.Duration
	// MaxQueryBytes bounds the query text.
	MaxQueryBytes int
	// MaxLimit bounds the results per kind a client may ask for.
	MaxLimit int
}

// DefaultSearchOptions are the settings used when none are given. The
// retrieval constants (RRFK, ThreadWeight, ThreadWindow, SpeakerWeight,
// TimeFactor, WhenFactor; the server's vector weight with the hashing
// embedder) are chosen by cross-validation over LoCoMo and LongMemEval at
// once (`go run ./cmd/bench cv`, bench/README.md); CurrencyFactor acts
// on facts, which neither benchmark has, and is a design choice.
func DefaultSearchOptions() SearchOptions {
	return SearchOptions{RRFK: 30, Candidates: 4, VectorWeight: 1, TextWeight: 1,
		ThreadWeight: 1, ThreadWindow: 2, SpeakerWeight: 0.8, GraphWeight: 1, GraphDepth: 2, GraphFanOut: 20,
		CurrencyFactor: 0.5, TimeFactor: 0.5, WhenFactor: 0.7,
		MMRLambda: 1, RerankCandidates: 20, RerankTimeout: 2 * time.Second, Timeout: 5 * time.Second, RetrieverTimeout: 2 * time.Second, MaxQueryBytes: 4096, MaxLimit: 100}
}

func (o SearchOptions) withDefaults() SearchOptions {
	d := DefaultSearchOptions()
	if o.RRFK <= 0 {
		o.RRFK = d.RRFK
	}
	if o.Candidates <= 0 {
		o.Candidates = d.Candidates
	}
	if o.VectorWeight < 0 || o.TextWeight < 0 || o.VectorWeight+o.TextWeight == 0 {
		o.VectorWeight, o.TextWeight = d.VectorWeight, d.TextWeight
	}
	weight := func(w *float64, def float64) {
		switch {
		case *w < 0:
			*w = 0
		case *w == 0:
			*w = def
		}
	}
	weight(&o.ThreadWeight, d.ThreadWeight)
	weight(&o.SpeakerWeight, d.SpeakerWeight)
	weight(&o.GraphWeight, d.GraphWeight)
	positive := func(v *int, def, most int) {
		if *v <= 0 {
			*v = def
		}
		*v = min(*v, most)
	}
	positive(&o.ThreadWindow, d.ThreadWindow, kgmem.MaxThreadWindow)
	positive(&o.GraphDepth, d.GraphDepth, 4)
	positive(&o.GraphFanOut, d.GraphFanOut, 200)
	factor := func(f *float64, def float64) {
		switch {
		case *f == 0:
			*f = def
		case *f < 0 || *f > 1:
			*f = 1
		}
	}
	factor(&o.CurrencyFactor, d.CurrencyFactor)
	factor(&o.TimeFactor, d.TimeFactor)
	factor(&o.WhenFactor, d.WhenFactor)
	if o.MMRLambda <= 0 || o.MMRLambda > 1 {
		o.MMRLambda = d.MMRLambda
	}
	positive(&o.RerankCandidates, d.RerankCandidates, 1000)
	if o.RerankTimeout <= 0 {
		o.RerankTimeout = d.RerankTimeout
	}
	if o.Timeout <= 0 {
		o.Timeout = d.Timeout
	}
	if o.RetrieverTimeout <= 0 || o.RetrieverTimeout > o.Timeout {
		o.RetrieverTimeout = min(d.RetrieverTimeout, o.Timeout)
	}
	if o.MaxQueryBytes <= 0 {
		o.MaxQueryBytes = d.MaxQueryBytes
	}
	if o.MaxLimit <= 0 {
		o.MaxLimit = d.MaxLimit
	}
	return o
}

// weight is the fusion weight of a retriever.
func (o SearchOptions) weight(retriever string) float64 {
	switch retriever {
	case RetrieverVector:
		return o.VectorWeight
	case RetrieverBM25:
		return o.TextWeight
	case RetrieverThread:
		return o.ThreadWeight
	case RetrieverGraph:
		return o.GraphWeight
	case RetrieverSpeaker:
		return o.SpeakerWeight
	}
	return 0
}
