package wire

import (
	"time"

	"github.com/kgmem/kgmem"
)

// The answers below are the engine's results as the API sends them. The
// server converts its engine's values into these at its edge (package api),
// so that the JSON on the wire is declared here, and a client reading them
// needs nothing of the engine.

// IngestResult is the body of POST /v1/memories (sync) and the result of a
// finished ingest job: the messages stored and what extraction changed.
type IngestResult struct {
	Episodes []EpisodeStatus    `json:"episodes"`
	Facts    []kgmem.FactChange `json:"facts"`
	Usage    kgmem.LLMUsage     `json:"usage"`
	// Warnings report anything that did not go to plan but lost nothing
	// (for example: the LLM failed, so no facts were extracted; episodes kept).
	Warnings []string `json:"warnings"`
	// JobID names the background job that continues an extraction that
	// could not finish within the request.
	JobID string `json:"job_id,omitempty"`
}

// EpisodeStatus is a stored message and whether this request created it
// (false: it was stored before, and nothing was written for it).
type EpisodeStatus struct {
	kgmem.Episode
	Created bool `json:"created"`
}

// AddFactsResult is the body of POST /v1/facts: what the posted triples
// changed.
type AddFactsResult struct {
	Facts []kgmem.FactChange `json:"facts"`
	Usage kgmem.LLMUsage     `json:"usage"`
}

// FactView is a fact with its status spelled out: the body of GET
// /v1/facts/{id} and the elements of FactList.
type FactView struct {
	kgmem.Fact
	// Status is the fact's kgmem.FactStatus at the server's clock:
	// "current", "upcoming", "ended" or "invalidated".
	Status kgmem.FactStatus `json:"status"`
}

// SearchResult is the body of POST /v1/search: the ranked results per kind
// and a prompt-ready context.
type SearchResult struct {
	Facts    []FactResult    `json:"facts"`
	Episodes []EpisodeResult `json:"episodes"`
	Entities []EntityResult  `json:"entities"`
	// Items are the ranked items, each with a score.
	Items []ItemResult `json:"items"`
	// Graph is the entity subgraph of the returned facts and entities.
	Graph ResultGraph `json:"graph"`
	// Context is the results rendered for an LLM prompt, with dates.
	Context string `json:"context"`
	// Warnings report degraded retrieval (a retriever failed; the others answered).
	Warnings []string `json:"warnings"`
}

// FactResult is a ranked fact.
type FactResult struct {
	FactView
	// Provenance holds the most recent messages the fact was drawn from (at
	// most 3; the fact's episodes field lists every id).
	Provenance []kgmem.Episode `json:"provenance,omitempty"`
	Score      Score           `json:"score"`
}

// EpisodeResult is a ranked message.
type EpisodeResult struct {
	kgmem.Episode
	Score Score `json:"score"`
}

// EntityResult is a ranked entity.
type EntityResult struct {
	kgmem.Entity
	Score Score `json:"score"`
}

// ItemResult is an item found by a search. Score is nil for an item listed
// without being ranked (no query, or the query did not find it).
type ItemResult struct {
	kgmem.Item
	Score *Score `json:"score"`
}

// Score explains a result's rank: which retrievers found it, at which rank
// and raw score, and how that fused into the final score.
type Score struct {
	// Final orders the results: Relevance × DecayWeight × the factors of
	// Priors.
	Final float64 `json:"final"`
	// Relevance is the fused reciprocal-rank score before any weighting, or
	// the reranker's score when a reranker ordered the results.
	Relevance float64 `json:"relevance"`
	// Retention is the forgetting-curve retention R in [0, 1] at the query instant.
	Retention float64 `json:"retention"`
	// DecayWeight is floor + (1 − floor)·R: decay reorders, never hides.
	DecayWeight float64 `json:"decay_weight"`
	// Sources lists each retriever that found the result.
	Sources []SourceScore `json:"sources"`
	// Priors lists the priors that weighed the result down, each with its
	// factor.
	Priors []PriorScore `json:"priors,omitempty"`
}

// SourceScore is one retriever's opinion of a result.
type SourceScore struct {
	// Retriever is "vector", "bm25", "thread", "speaker", "graph" or "rerank".
	Retriever string `json:"retriever"`
	// Rank is 1-based within that retriever's list for the result's kind.
	Rank int `json:"rank"`
	// Score is the retriever's raw score (cosine similarity, BM25).
	Score float64 `json:"score"`
	// Contribution is what this retriever added to Relevance.
	Contribution float64 `json:"contribution,omitzero"`
}

// PriorScore is one prior that weighed a result down.
type PriorScore struct {
	// Prior is "currency", "time" or "when".
	Prior string `json:"prior"`
	// Factor multiplies the final score, in (0, 1].
	Factor float64 `json:"factor"`
}

// ResultGraph is the entity subgraph of a search's facts and entities.
type ResultGraph struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
}

// GraphNode is an entity of the result graph.
type GraphNode struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// GraphEdge is a fact of the result graph, from subject to object.
type GraphEdge struct {
	// ID is the fact's id.
	ID        string `json:"id"`
	Source    string `json:"source"`
	Target    string `json:"target"`
	Predicate string `json:"predicate"`
	Fact      string `json:"fact"`
	// Status is the fact's kgmem.FactStatus.
	Status kgmem.FactStatus `json:"status"`
}

// Job is a background ingest job and what became of it: the body of GET
// /v1/jobs/{id} and of an async POST /v1/memories (202).
type Job struct {
	ID        string          `json:"id"`
	Namespace kgmem.Namespace `json:"namespace"`
	ThreadID  string          `json:"thread_id"`
	// Status is queued, running, succeeded or failed.
	Status   kgmem.JobStatus `json:"status"`
	Progress JobProgress     `json:"progress"`
	// Result is, once succeeded, the body the synchronous call returns.
	Result *IngestResult `json:"result,omitempty"`
	Error  string        `json:"error,omitempty"`
	// CoalescedWith lists the other jobs of the same thread run in the same
	// engine call (one extraction for all).
	CoalescedWith []string   `json:"coalesced_with,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	StartedAt     *time.Time `json:"started_at,omitempty"`
	FinishedAt    *time.Time `json:"finished_at,omitempty"`
}

// JobProgress counts a job's messages.
type JobProgress struct {
	Messages int `json:"messages"`
	// Stored is how many are stored (new or known before); set when it succeeds.
	Stored int `json:"stored"`
}

// Ref names one decaying record of a namespace: the elements of
// RefsRequest.Refs and of a Strength.
type Ref struct {
	Kind kgmem.Kind `json:"kind"`
	ID   string     `json:"id"`
}

// Strength is how strongly one record is held now, and how it will fade
// without recall: the elements of StrengthList.
type Strength struct {
	Ref
	// Retention is R now, in [0, 1] (1 for pinned and evergreen records).
	Retention float64 `json:"retention"`
	// Weight is the factor search multiplies relevance by: floor + (1 − floor)·R.
	Weight float64 `json:"weight"`
	// StabilityDays is S: the age at which retention falls to 0.9.
	StabilityDays float64 `json:"stability_days"`
	// AgeDays is the time since the last reinforcement, in days.
	AgeDays float64 `json:"age_days"`
	// Pinned is true for pinned and evergreen records: they never decay.
	Pinned bool `json:"pinned"`
	// Due is true when the next sweep will soft-forget the record.
	Due bool `json:"due"`
	// ForgetAfterDays is the age at which retention falls below the
	// namespace's forget threshold (0 when it never does).
	ForgetAfterDays float64 `json:"forget_after_days,omitzero"`
	// State is the stored decay state.
	State kgmem.DecayState `json:"decay"`
	// Curve samples retention at ages since the last reinforcement.
	Curve []CurvePoint `json:"curve"`
}

// CurvePoint is the retention of a record at an age.
type CurvePoint struct {
	// Days since the last reinforcement.
	Days float64 `json:"days"`
	// Retention at that age, in [0, 1].
	Retention float64 `json:"retention"`
}

// SweepStats is the body of POST /v1/namespaces/{namespace}/sweep: what one
// sweep did, per kind.
type SweepStats struct {
	Facts    SweepCounts `json:"facts"`
	Entities SweepCounts `json:"entities"`
	Episodes SweepCounts `json:"episodes"`
	// Items are exempt from forgetting (they live until deleted or
	// expired): their counts stay zero.
	Items SweepCounts `json:"items"`
	// ExpiredItems counts the items whose TTL ran out that the sweep deleted.
	ExpiredItems int `json:"expired_items"`
	// Disabled is true when the namespace's decay is off and nothing was scanned.
	Disabled bool `json:"disabled,omitempty"`
}

// SweepCounts reports a sweep over one kind of record.
type SweepCounts struct {
	// Scanned records of the kind.
	Scanned int `json:"scanned"`
	// Forgotten records newly marked forgotten by this sweep.
	Forgotten int `json:"forgotten"`
	// Pinned records skipped because they never decay (pinned or evergreen).
	Pinned int `json:"pinned"`
	// AlreadyForgotten records skipped because an earlier sweep forgot them.
	AlreadyForgotten int `json:"already_forgotten"`
}
