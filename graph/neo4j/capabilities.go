package neo4j

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/auth"
)

// The optional capabilities a Store offers the servers that share its
// database (kgmem's capabilities.go): jobs, namespace locks, the vector
// outbox and API keys, each kept in the database.
var (
	_ kgmem.SharedJobs         = (*Store)(nil)
	_ kgmem.NamespaceLeases    = (*Store)(nil)
	_ kgmem.VectorOutboxStore  = (*Store)(nil)
	_ auth.SharedKeys          = (*Store)(nil)
	_ kgmem.SharedVectorOutbox = (*VectorOutbox)(nil)
	_ kgmem.JournalingOutbox   = (*VectorOutbox)(nil)
)

// OpenVectorOutbox implements kgmem.VectorOutboxStore: it opens the
// database's vector outbox (VectorOutbox) as owner.
func (s *Store) OpenVectorOutbox(ctx context.Context, owner string, lease time.Duration, log *slog.Logger) (kgmem.SharedVectorOutbox, error) {
	box, err := s.VectorOutbox(ctx, owner, lease, log)
	if err != nil {
		return nil, err
	}
	return box, nil
}

// QueuedVectorWrites implements kgmem.VectorOutboxStore: it counts the
// vector outbox's ops of every owner in the store's scope, by namespace.
func (s *Store) QueuedVectorWrites(ctx context.Context) (map[kgmem.Namespace]int, error) {
	recs, err := s.read(ctx, qQueuedOps, map[string]any{"scope": s.cfg.Scope})
	if err != nil {
		return nil, fmt.Errorf("neo4j: count queued vector writes: %w", err)
	}
	out := make(map[kgmem.Namespace]int, len(recs))
	for _, rec := range recs {
		ns, _ := rec.Values[0].(string)
		n, _ := rec.Values[1].(int64)
		out[kgmem.Namespace(ns)] += int(n)
	}
	return out, nil
}
