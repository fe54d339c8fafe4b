package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
)

// write embeds what cs adds or changes, journals the vector ops in the outbox,
// applies cs to the graph atomically, then upserts the vectors. Embedding first
// means an unreachable embedder rejects the write before anything is stored;
// the graph is the source of truth, so a vector write failing after it (or a
// crash before it) leaves its ops in the durable outbox, retried from the
// graph, rather than undoing anything (guardedWrite). The caller holds the
// namespace lock.
func (e *Engine) write(ctx context.Context, cs kgmem.ChangeSet) error {
	records, err := e.embedChanges(ctx, cs)
	if err != nil {
		return err
	}
	records, zero := splitZero(records)
	return e.guardedWrite(ctx, upsertOps(cs.Namespace, records, zero),
		func() error {
			if err := e.graph.Apply(ctx, cs); err != nil {
				return fmt.Errorf("write graph: %w", err)
			}
			return nil
		},
		func(ctx context.Context) error { return e.writeVectors(ctx, cs.Namespace, records, zero) })
}

// embedChanges embeds every episode, fact and entity that cs writes.
func (e *Engine) embedChanges(ctx context.Context, cs kgmem.ChangeSet) ([]kgmem.VectorRecord, error) {
	var texts []string
	var records []kgmem.VectorRecord
	add := func(kind kgmem.Kind, id, text string, created time.Time) {
		texts = append(texts, text)
		records = append(records, kgmem.VectorRecord{ID: id, Namespace: cs.Namespace, Kind: kind, CreatedAt: created})
	}
	for _, ep := range cs.Episodes {
		add(kgmem.KindEpisode, ep.ID, EpisodeText(ep), ep.CreatedAt)
	}
	for _, f := range cs.Facts {
		add(kgmem.KindFact, f.ID, f.Text, f.CreatedAt)
	}
	for _, ent := range cs.Entities {
		add(kgmem.KindEntity, ent.ID, EntityText(ent), ent.CreatedAt)
	}
	if len(texts) == 0 {
		return nil, nil
	}
	vecs, err := e.embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed %d texts with %s: %w", len(texts), e.embedder.Name(), err)
	}
	if len(vecs) != len(records) {
		return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts: %w", e.embedder.Name(), len(vecs), len(texts), kgmem.ErrUnavailable)
	}
	for i := range records {
		records[i].Vector = vecs[i]
	}
	return records, nil
}

// EpisodeText is what gets embedded for an episode: the speaker's name and the
// message, so "what did Caroline say about…" matches her messages.
func EpisodeText(ep kgmem.Episode) string {
	if ep.Name == "" {
		return ep.Content
	}
	return ep.Name + ": " + ep.Content
}

// EntityText is what gets embedded for an entity: its names and type.
func EntityText(ent kgmem.Entity) string {
	return strings.Join(ent.Names(), ", ") + " (" + ent.Type + ")"
}
