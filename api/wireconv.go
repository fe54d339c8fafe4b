package api

import (
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/jobs"
	"github.com/kgmem/kgmem/memory"
)

// The functions below convert the engine's results into the wire types the
// API sends (package api/wire), field by field: the JSON of an answer is
// declared by api/wire, not by the engine's types. TestWireConversion fills
// every field of each engine result and checks that its conversion encodes
// to the same JSON as the engine value did when it was sent as is.

// convertAll converts each element of in with f; nil stays nil (encoded
// null) and empty stays empty (encoded []), as the engine value would be.
func convertAll[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func wireIngestResult(r memory.IngestResult) wire.IngestResult {
	return wire.IngestResult{
		Episodes: convertAll(r.Episodes, func(e memory.EpisodeStatus) wire.EpisodeStatus {
			return wire.EpisodeStatus{Episode: e.Episode, Created: e.Created}
		}),
		Facts: r.Facts, Usage: r.Usage, Warnings: r.Warnings, JobID: r.JobID,
	}
}

func wireAddFactsResult(r memory.AddFactsResult) wire.AddFactsResult {
	return wire.AddFactsResult{Facts: r.Facts, Usage: r.Usage}
}

func wireFactView(f memory.FactView) wire.FactView {
	return wire.FactView{Fact: f.Fact, Status: f.Status}
}

func wireSearchResult(r memory.SearchResult) wire.SearchResult {
	return wire.SearchResult{
		Facts: convertAll(r.Facts, func(f memory.FactResult) wire.FactResult {
			return wire.FactResult{FactView: wireFactView(f.FactView), Provenance: f.Provenance, Score: wireScore(f.Score)}
		}),
		Episodes: convertAll(r.Episodes, func(e memory.EpisodeResult) wire.EpisodeResult {
			return wire.EpisodeResult{Episode: e.Episode, Score: wireScore(e.Score)}
		}),
		Entities: convertAll(r.Entities, func(e memory.EntityResult) wire.EntityResult {
			return wire.EntityResult{Entity: e.Entity, Score: wireScore(e.Score)}
		}),
		Items:    convertAll(r.Items, wireItemResult),
		Graph:    wireResultGraph(r.Graph),
		Context:  r.Context,
		Warnings: r.Warnings,
	}
}

func wireItemResult(it memory.ItemResult) wire.ItemResult {
	out := wire.ItemResult{Item: it.Item}
	if it.Score != nil {
		s := wireScore(*it.Score)
		out.Score = &s
	}
	return out
}

func wireScore(s memory.Score) wire.Score {
	return wire.Score{
		Final: s.Final, Relevance: s.Relevance, Retention: s.Retention, DecayWeight: s.DecayWeight,
		Sources: convertAll(s.Sources, func(src memory.SourceScore) wire.SourceScore {
			return wire.SourceScore{Retriever: src.Retriever, Rank: src.Rank, Score: src.Score, Contribution: src.Contribution}
		}),
		Priors: convertAll(s.Priors, func(p memory.PriorScore) wire.PriorScore {
			return wire.PriorScore{Prior: p.Prior, Factor: p.Factor}
		}),
	}
}

func wireResultGraph(g memory.ResultGraph) wire.ResultGraph {
	return wire.ResultGraph{
		Nodes: convertAll(g.Nodes, func(n memory.GraphNode) wire.GraphNode {
			return wire.GraphNode{ID: n.ID, Name: n.Name, Type: n.Type}
		}),
		Edges: convertAll(g.Edges, func(e memory.GraphEdge) wire.GraphEdge {
			return wire.GraphEdge{ID: e.ID, Source: e.Source, Target: e.Target, Predicate: e.Predicate, Fact: e.Fact, Status: e.Status}
		}),
	}
}

func wireJob(j jobs.Job) wire.Job {
	out := wire.Job{
		ID: j.ID, Namespace: j.Namespace, ThreadID: j.ThreadID, Status: j.Status,
		Progress: wire.JobProgress{Messages: j.Progress.Messages, Stored: j.Progress.Stored},
		Error:    j.Error, CoalescedWith: j.CoalescedWith,
		CreatedAt: j.CreatedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt,
	}
	if j.Result != nil {
		r := wireIngestResult(*j.Result)
		out.Result = &r
	}
	return out
}

func wireRef(r decay.Ref) wire.Ref { return wire.Ref{Kind: r.Kind, ID: r.ID} }

// engineRefs converts a request's refs for the engine.
func engineRefs(refs []wire.Ref) []decay.Ref {
	return convertAll(refs, func(r wire.Ref) decay.Ref { return decay.Ref{Kind: r.Kind, ID: r.ID} })
}

func wireStrength(s decay.Strength) wire.Strength {
	return wire.Strength{
		Ref: wireRef(s.Ref), Retention: s.Retention, Weight: s.Weight, StabilityDays: s.StabilityDays,
		AgeDays: s.AgeDays, Pinned: s.Pinned, Due: s.Due, ForgetAfterDays: s.ForgetAfterDays, State: s.State,
		Curve: convertAll(s.Curve, func(p decay.CurvePoint) wire.CurvePoint {
			return wire.CurvePoint{Days: p.Days, Retention: p.Retention}
		}),
	}
}

func wireSweepStats(s decay.SweepStats) wire.SweepStats {
	counts := func(c decay.SweepCounts) wire.SweepCounts {
		return wire.SweepCounts{Scanned: c.Scanned, Forgotten: c.Forgotten, Pinned: c.Pinned, AlreadyForgotten: c.AlreadyForgotten}
	}
	return wire.SweepStats{Facts: counts(s.Facts), Entities: counts(s.Entities), Episodes: counts(s.Episodes),
		Items: counts(s.Items), ExpiredItems: s.ExpiredItems, Disabled: s.Disabled}
}
