package memory

import (
	"context"
	"strings"

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
	records, zero, err := e.embedDocs(ctx, cs.Namespace, changeDocs(cs))
	if err != nil {
		return err
	}

	return e.guardedApply(ctx, cs, upsertOps(cs.Namespace, records, zero),
		func() { e.timelines.forget(cs.Namespace) },
		func(ctx context.Context) error { return e.writeVectors(ctx, cs.Namespace, records, zero) })
}

// changeDocs lists what cs writes that gets a vector: its episodes, facts,
// entities and items, with the texts embedded for them.
func changeDocs(cs kgmem.ChangeSet) []doc {
	docs := make([]doc, 0, len(cs.Episodes)+len(cs.Facts)+len(cs.Entities)+len(cs.Items))
	for _, ep := range cs.Episodes {
		docs = append(docs, episodeDoc(ep))
	}
	for _, f := range cs.Facts {
		docs = append(docs, factDoc(f))
	}
	for _, ent := range cs.Entities {
		docs = append(docs, entityDoc(ent))
	}
	for _, it := range cs.Items {
		// An item without text gets no vector: embedDocs turns it into a
		// delete of any vector an earlier version had.
		docs = append(docs, itemDoc(it))
	}
	return docs
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
