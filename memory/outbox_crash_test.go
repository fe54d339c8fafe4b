package memory_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/polltest"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/outbox"
	"github.com/kgmem/kgmem/vector/hnsw"
)

const crashChildEnv = "KGMEM_MEMORY_OUTBOX_CRASH_DIR"

// stallingIndex passes writes through until the stallAt-th upsert, which
// announces itself on stdout and then blocks forever: the process is inside
// a write, after its graph change, when it is killed.
type stallingIndex struct {
	kgmem.VectorIndex
	upserts, stallAt int
}

func (s *stallingIndex) Upsert(ctx context.Context, r []kgmem.VectorRecord) error {
	s.upserts++
	if s.upserts == s.stallAt {
		fmt.Println("stalled", r[0].ID)
		select {}
	}
	return s.VectorIndex.Upsert(ctx, r)
}

// TestOutboxSurvivesSIGKILL kills a process with SIGKILL between its graph
// write and its vector write, then starts an engine on the same data
// directory and checks that the drain on start-up writes the missing vectors:
// the write-ahead outbox entry made before the graph write survives the kill.
func TestOutboxSurvivesSIGKILL(t *testing.T) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		outboxCrashChild(dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOutboxSurvivesSIGKILL$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stalled := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "stalled "); ok {
				stalled <- id
				return
			}
		}
		close(stalled)
	}()
	var id string
	select {
	case id = <-stalled:
	case <-time.After(30 * time.Second):
	}
	_ = cmd.Process.Kill() // SIGKILL
	_ = cmd.Wait()
	if id == "" {
		t.Fatal("the child never reached its stalled vector write")
	}

	ctx := context.Background()
	ix, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), 256, hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	const ns = kgmem.Namespace("crash/a")
	if n, _ := ix.Count(ctx, ns, ""); n != 5 {
		t.Fatalf("before recovery the index holds %d vectors, want the 5 written before the stall", n)
	}
	f := newFaultEngine(t, dir, ix, faultScript(t))
	if f.engine.OutboxDepth() != 1 {
		t.Fatalf("recovered outbox holds %d ops, want the stalled write's 1", f.engine.OutboxDepth())
	}
	runOutbox(t, f.engine)
	polltest.Until(t, 30*time.Second, "the recovered outbox to drain", func() bool { return f.engine.OutboxDepth() == 0 })
	report, err := f.engine.CheckConsistency(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if !report.Consistent() || report.GraphRecords != 6 || report.Vectors != 6 {
		t.Errorf("after recovery: %+v, want 6 episodes with 6 vectors (%s among them)", report, id)
	}
}

// outboxCrashChild ingests six messages one by one; the sixth one's vector
// write stalls until the parent kills the process.
func outboxCrashChild(dir string) {
	ctx := context.Background()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(2)
	}
	g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		fail(err)
	}
	ix, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), 256, hnsw.Options{})
	if err != nil {
		fail(err)
	}
	box, _, err := outbox.Open(filepath.Join(dir, "vector.outbox"))
	if err != nil {
		fail(err)
	}
	eng, err := memory.New(memory.Config{Graph: g, Vectors: &stallingIndex{VectorIndex: ix, stallAt: 6}, Embedder: embed.NewHashing(256),
		Logger: slog.New(slog.DiscardHandler), Outbox: box, OutboxOptions: memory.OutboxOptions{WriteTimeout: time.Hour}})
	if err != nil {
		fail(err)
	}
	for i := range 6 {
		m := msg(fmt.Sprintf("m%d", i), "Ann", fmt.Sprintf("Message number %d about rockets.", i), "2024-01-01T00:00:00Z")
		if _, err := eng.Ingest(ctx, memory.IngestRequest{Namespace: "crash/a", ThreadID: "t", Messages: []episodes.Message{m}}); err != nil {
			fail(err)
		}
	}
	fail(fmt.Errorf("the sixth vector write did not stall"))
}
