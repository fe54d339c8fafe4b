package memory

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem"
)

// ResultGraph is the entity subgraph around a search's facts, ready to draw:
// every returned fact is an edge, its subject and object and every returned
// entity are nodes.
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

// resultGraph builds the graph of the returned facts and entities. A fact
// end that is not among the returned entities takes its name and type from
// the fact, which stores fill on read; one a store left unnamed is loaded.
func (e *Engine) resultGraph(ctx context.Context, req SearchRequest, facts []FactResult, entities []EntityResult) (ResultGraph, error) {
	g := ResultGraph{Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	known := map[string]kgmem.Entity{}
	for _, ent := range entities {
		known[ent.ID] = ent.Entity
	}
	var missing []string
	for _, f := range facts {
		for _, end := range []struct{ id, name, typ string }{{f.SubjectID, f.SubjectName, f.SubjectType}, {f.ObjectID, f.ObjectName, f.ObjectType}} {
			switch _, ok := known[end.id]; {
			case ok:
			case end.name != "":
				known[end.id] = kgmem.Entity{ID: end.id, Name: end.name, Type: end.typ}
			default:
				known[end.id] = kgmem.Entity{}
				missing = append(missing, end.id)
			}
		}
	}
	if len(missing) > 0 {
		ents, err := e.graph.Entities(ctx, req.Namespace, missing)
		if err != nil {
			return ResultGraph{}, fmt.Errorf("load fact ends: %w", err)
		}
		for _, ent := range ents {
			known[ent.ID] = ent
		}
	}
	added := map[string]bool{}
	node := func(id string) {
		if ent, ok := known[id]; ok && ent.ID != "" && !added[id] {
			added[id] = true
			g.Nodes = append(g.Nodes, GraphNode{ID: ent.ID, Name: ent.Name, Type: ent.Type})
		}
	}
	for _, f := range facts {
		node(f.SubjectID)
		node(f.ObjectID)
		g.Edges = append(g.Edges, GraphEdge{ID: f.ID, Source: f.SubjectID, Target: f.ObjectID, Predicate: f.Predicate, Fact: f.Text, Status: f.Status})
	}
	for _, ent := range entities {
		node(ent.ID)
	}
	return g, nil
}
