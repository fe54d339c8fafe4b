package decay

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

const crashChildEnv = "KGMEM_DECAY_CRASH_CHILD_JOURNAL"

// TestReinforcerSurvivesSIGKILL runs a child process that enqueues
// reinforcements in a loop and reports each one Enqueue acknowledged, kills it
// with SIGKILL mid-stream, and checks that a new Reinforcer on its journal
// holds every acknowledged reinforcement.
func TestReinforcerSurvivesSIGKILL(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	path := filepath.Join(t.TempDir(), "reinforce.journal")
	cmd := exec.Command(os.Args[0], "-test.run=^TestReinforcerSurvivesSIGKILL$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[string]bool{}
	sc := bufio.NewScanner(out)
	for sc.Scan() && len(acked) < 300 {
		acked[sc.Text()] = true
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() { // acknowledgements printed before the kill landed
		acked[sc.Text()] = true
	}
	_ = cmd.Wait()
	if len(acked) < 300 {
		t.Fatalf("child acknowledged only %d enqueues before exiting", len(acked))
	}

	r, err := NewReinforcer(ReinforcerConfig{Store: newMemStore(), JournalPath: path, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	found := map[string]bool{}
	for _, e := range r.pending {
		for _, ref := range e.Refs {
			found[ref.ID] = true
		}
	}
	r.mu.Unlock()
	// Stop before applying: the store has none of these records.
	r.crash()
	for id := range acked {
		if !found[id] {
			t.Errorf("acknowledged reinforcement of %s is not in the journal after SIGKILL", id)
		}
	}
	t.Logf("%d acknowledged, %d in the journal after SIGKILL", len(acked), len(found))
}

// crashChild enqueues forever, printing each acknowledged id, until killed.
func crashChild(path string) {
	r, err := NewReinforcer(ReinforcerConfig{Store: newMemStore(), JournalPath: path, Interval: time.Hour, BatchSize: 1 << 30})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		id := fmt.Sprintf("fact_%07d", i)
		if err := r.Enqueue(kgmem.Namespace("acme/u1"), Ref{Kind: kgmem.KindFact, ID: id}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(id)
	}
}
