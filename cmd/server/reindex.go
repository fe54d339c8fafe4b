package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/memory"
	"github.com/spf13/cobra"
)

// errInconsistent is returned by check when graph and vectors differ, so the
// process exits non-zero.
var errInconsistent = errors.New("graph and vectors are inconsistent")

// newMaintenanceCommand is a maintenance command (sweep, reindex, check):
// the engine's settings and --namespace, whose absence means every
// namespace of the graph; on is the command, do runs it.
func newMaintenanceCommand(name, short string, on commands, std streams, do func(ctx context.Context, cfg *config, only []kgmem.Namespace, stdout io.Writer) error) *cobra.Command {
	cmd := &cobra.Command{Use: name, Short: short + " (--namespace NS, default all)", Args: cobra.NoArgs}
	namespace := cmd.Flags().String("namespace", "", name+" only this namespace (default: every namespace of the graph)")
	cfg := tableFlags(cmd, on)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		only, err := maintenanceScope(cfg, *namespace)
		if err != nil {
			return err
		}
		return do(cmd.Context(), cfg, only, std.out)
	}
	return cmd
}

// maintenanceScope validates cfg and returns the namespace a maintenance
// command works on, none for all.
func maintenanceScope(cfg *config, namespace string) ([]kgmem.Namespace, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if namespace == "" {
		return nil, nil
	}
	ns, err := kgmem.ParseNamespace(namespace)
	if err != nil {
		return nil, fmt.Errorf("--namespace: %w", err)
	}
	return []kgmem.Namespace{ns}, nil
}

// reindexSummary is what reindex prints.
type reindexSummary struct {
	Namespaces []memory.ReindexStats `json:"namespaces"`
	Total      memory.ReindexStats   `json:"total"`
	Duration   string                `json:"duration"`
}

// reindex rebuilds the vectors of one namespace (--namespace) or of all from
// the graph, deletes vectors whose record is gone, and prints a JSON summary.
// With the embedded vector index, run it while the server is stopped (the
// server keeps the index in memory and would not see the rebuild).
func reindex(ctx context.Context, cfg *config, only []kgmem.Namespace, stdout io.Writer) error {
	cfg.reembed = true
	cfg.MilvusConsistency = maintenanceConsistency
	log := cfg.logger()
	b, err := openBackends(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer b.close(log)

	start := time.Now()
	var stats []memory.ReindexStats
	if only != nil {
		st, rerr := b.engine.Reindex(ctx, only[0])
		stats, err = []memory.ReindexStats{st}, rerr
	} else {
		stats, err = b.engine.ReindexAll(ctx)
	}
	sum := reindexSummary{Namespaces: stats, Duration: time.Since(start).Round(time.Millisecond).String()}
	sum.Total.Namespace = "*"
	for _, st := range stats {
		sum.Total.Episodes += st.Episodes
		sum.Total.Facts += st.Facts
		sum.Total.Entities += st.Entities
		sum.Total.Upserted += st.Upserted
		sum.Total.Unembeddable += st.Unembeddable
		sum.Total.OrphansDeleted += st.OrphansDeleted
	}
	sum.Total.Duration = time.Since(start)
	if perr := printJSON(stdout, sum); perr != nil {
		return errors.Join(err, perr)
	}
	if err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	if only == nil && cfg.Vector == "hnsw" {
		// Every namespace now holds this embedder's vectors.
		return writeEmbedderStamp(cfg.DataDir, b.embedder.Name())
	}
	return nil
}

// maintenanceConsistency is the Milvus read consistency of check and
// reindex, whatever --milvus-consistency says: they compare the graph with
// every vector written so far, by any process. A Session read in a process
// that wrote nothing reads Bounded, which misses the last few seconds of
// other processes' writes (an import that just ended, a server's), and
// check would report them missing and reindex write them again.
const maintenanceConsistency = "Strong"

// checkSummary is what check prints.
type checkSummary struct {
	Consistent bool                       `json:"consistent"`
	Namespaces []memory.ConsistencyReport `json:"namespaces"`
}

// check compares the vectors of one namespace (--namespace) or of all with
// the graph, both ways, prints a JSON report, and fails (non-zero exit) when
// a vector lacks its record or a record lacks its vector.
func check(ctx context.Context, cfg *config, only []kgmem.Namespace, stdout io.Writer) error {
	cfg.MilvusConsistency = maintenanceConsistency
	log := cfg.logger()
	b, err := openBackends(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer b.close(log)

	var reports []memory.ConsistencyReport
	if only != nil {
		r, cerr := b.engine.CheckConsistency(ctx, only[0])
		reports, err = []memory.ConsistencyReport{r}, cerr
	} else {
		reports, err = b.engine.CheckAllConsistency(ctx)
	}
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	queued, err := queuedVectorWrites(ctx, cfg, b.graph)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	sum := checkSummary{Consistent: true, Namespaces: reports}
	bad, waiting := 0, 0
	for i := range reports {
		r := &reports[i]
		r.Queued = queued[r.Namespace]
		if !r.Consistent() {
			sum.Consistent = false
			bad++
			waiting += r.Queued
		}
	}
	if err := printJSON(stdout, sum); err != nil {
		return err
	}
	switch {
	case bad > 0 && waiting > 0:
		return fmt.Errorf("%w in %d of %d namespaces, where %d vector writes are still queued: the next `server serve` or `server ingest` on these backends applies them, and `server reindex` repairs what they do not", errInconsistent, bad, len(reports), waiting)
	case bad > 0:
		return fmt.Errorf("%w in %d of %d namespaces; `server reindex` repairs them", errInconsistent, bad, len(reports))
	}
	return nil
}

// queuedVectorWrites counts, by namespace, the vector writes queued in the
// durable outbox: every server's, in a graph store that keeps it
// (kgmem.VectorOutboxStore), or else the journal in the data directory,
// which check may open since it holds the directory's lock. A maintenance
// command opens no outbox of its own, so the engine's count is always 0.
func queuedVectorWrites(ctx context.Context, cfg *config, graph kgmem.GraphStore) (map[kgmem.Namespace]int, error) {
	if kept, ok := graph.(kgmem.VectorOutboxStore); ok {
		return kept.QueuedVectorWrites(ctx)
	}
	box, err := openExistingOutbox(filepath.Join(cfg.DataDir, outboxFile))
	if err != nil || box == nil {
		return nil, err
	}
	defer box.Close()
	out := map[kgmem.Namespace]int{}
	for _, op := range box.Pending(0) {
		out[op.Namespace]++
	}
	return out, nil
}

// printJSON writes a maintenance command's summary, indented, to w.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("print summary: %w", err)
	}
	return nil
}
