package sqlite_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// crashChildEnv names the database file a re-executed test binary writes to
// until it is killed.
const crashChildEnv = "KGMEM_SQLITE_CRASH_CHILD"

// crashNS is the namespace the crash test writes.
const crashNS = kgmem.Namespace("crash/test")

// TestCrashLeavesWholeChangeSets kills a writing process with SIGKILL in the
// middle of its work and checks that the file is intact and holds only whole
// change sets: every written entity has the fact and episode of its change set.
func TestCrashLeavesWholeChangeSets(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(t, path)
		return
	}
	if testing.Short() {
		t.Skip("spawns a writer process")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestCrashLeavesWholeChangeSets$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Poll, with a deadline, until the child has committed a good number of
	// change sets, then kill it mid-stream.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if n := countEntities(t, path); n >= 200 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("the writer process committed too little within 30s")
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not a readiness guess
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("reopen after the crash: %v", err)
	}
	defer func() { _ = s.Close() }()
	var after string
	total := 0
	for {
		es, err := s.FindEntities(t.Context(), crashNS, kgmem.EntityFilter{Page: kgmem.Page{After: after, Limit: 500}})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			break
		}
		for _, e := range es {
			suffix := e.ID[len("ent_"):]
			if _, err := s.Fact(t.Context(), crashNS, "fact_"+suffix); err != nil {
				t.Fatalf("entity %s without the fact of its change set: %v", e.ID, err)
			}
			if eps, err := s.Episodes(t.Context(), crashNS, []string{"ep_" + suffix}); err != nil || len(eps) != 1 {
				t.Fatalf("entity %s without the episode of its change set: %v", e.ID, err)
			}
		}
		total += len(es)
		after = es[len(es)-1].ID
	}
	if total < 200 {
		t.Fatalf("only %d change sets survived", total)
	}
	hits, err := s.SearchText(t.Context(), crashNS, kgmem.TextQuery{Text: "crash", Kinds: []kgmem.Kind{kgmem.KindFact}, Limit: 5})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search after the crash = %v, %v", hits, err)
	}
}

// countEntities counts the entities committed to path so far (0 before the
// file exists).
func countEntities(t *testing.T, path string) int {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return 0
	}
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		return 0 // the child may be creating the schema
	}
	defer func() { _ = s.Close() }()
	es, err := s.FindEntities(t.Context(), crashNS, kgmem.EntityFilter{Page: kgmem.Page{Limit: 1000}})
	if err != nil {
		return 0
	}
	return len(es)
}

// crashChild writes change sets of an entity, an episode and a fact to path
// until the process is killed.
func crashChild(t *testing.T, path string) {
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		p := fmt.Sprintf("%08d", i)
		e := graphtest.Entity(crashNS, "ent_"+p, "Entity "+p)
		cs := kgmem.ChangeSet{
			Namespace: crashNS,
			Episodes:  []kgmem.Episode{graphtest.Episode(crashNS, "ep_"+p, "Ann", "message "+p)},
			Entities:  []kgmem.Entity{e},
			Facts:     []kgmem.Fact{graphtest.Fact(crashNS, "fact_"+p, e.ID, "survives", e.ID, "Entity "+p+" survives the crash.")},
		}
		if err := s.Apply(t.Context(), cs); err != nil {
			t.Fatal(err)
		}
	}
}
