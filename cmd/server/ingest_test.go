package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/chatlog/gen"
	"github.com/kgmem/kgmem/chatlog/gen/gentest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// childEnv makes the test binary act as the server binary (see TestHelperProcess).
const childEnv = "KGMEM_TEST_HELPER_ARGS"

// TestHelperProcess is not a test: run by ingestProcess in a child process,
// it is `server` with the arguments in $KGMEM_TEST_HELPER_ARGS.
func TestHelperProcess(t *testing.T) {
	raw := os.Getenv(childEnv)
	if raw == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	if err := run(context.Background(), args, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "kgmem:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// serverProcess returns the test binary set up to run `server args...`.
func serverProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	raw, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(raw), "KGMEM_LOG_LEVEL=error")
	return cmd
}

// graphCounts opens the data directory's graph and counts episodes and
// facts (history included) over every namespace, failing the test on a
// message stored twice or a current fact triple stored twice.
func graphCounts(t *testing.T, dataDir string) (episodes, facts int) {
	t.Helper()
	ctx := context.Background()
	g, err := sqlite.Open(ctx, filepath.Join(dataDir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	nss, err := g.Namespaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss {
		msgs := map[string]bool{}
		for page := (kgmem.Page{Limit: 1000}); ; {
			eps, err := g.ListEpisodes(ctx, ns, page)
			if err != nil {
				t.Fatal(err)
			}
			for _, ep := range eps {
				if key := ep.ThreadID + "/" + ep.MessageID; msgs[key] {
					t.Errorf("%s: message %s stored twice", ns, key)
				} else {
					msgs[key] = true
				}
			}
			episodes += len(eps)
			if len(eps) < page.Limit {
				break
			}
			page.After = eps[len(eps)-1].ID
		}
		triples := map[string]bool{}
		for filter := (kgmem.FactFilter{IncludeExpired: true, Page: kgmem.Page{Limit: 1000}}); ; {
			fs, err := g.ListFacts(ctx, ns, filter)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				key := f.SubjectID + "|" + f.Predicate + "|" + f.ObjectID
				if f.Current() && triples[key] {
					t.Errorf("%s: current fact %q stored twice", ns, f.Text)
				}
				if f.Current() {
					triples[key] = true
				}
			}
			facts += len(fs)
			if len(fs) < filter.Limit {
				break
			}
			filter.After = fs[len(fs)-1].ID
		}
	}
	return episodes, facts
}

// TestIngestKillAndResume kills `server ingest` with SIGKILL once its
// checkpoint shows progress, runs it again, and checks the graph holds
// exactly what a clean run stores: every message once, the same facts.
func TestIngestKillAndResume(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("helper process")
	}
	// Each extraction takes 60 ms, so a run lasts about 3 s; the checkpoint
	// is saved every 100 ms, so it shows progress long before the run ends.
	// With instant answers a run took under a second and could finish before
	// a save was seen, leaving nothing to resume.
	llm := gentest.LLM(t, 60*time.Millisecond)
	dir := t.TempDir()
	input := filepath.Join(dir, "chat.jsonl")
	var buf bytes.Buffer
	// One namespace per thread: the threads do not share entities, so the
	// facts stored do not depend on how concurrent threads interleave.
	if err := gen.Write(&buf, gen.Config{Messages: 1200, Namespaces: 24, MessagesPerThread: 50, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ingestArgs := func(dataDir string) []string {
		return []string{"ingest", "--data-dir", dataDir, "--batch", "10", "--concurrency", "3", "--extract",
			"--llm-base-url", llm.URL(), "--llm-model", "m", "--checkpoint", filepath.Join(dataDir, "ck"), "--checkpoint-every", "100ms", input}
	}

	clean := filepath.Join(dir, "clean")
	cleanStart := time.Now()
	if out, err := serverProcess(t, ingestArgs(clean)...).CombinedOutput(); err != nil {
		t.Fatalf("clean run: %v\n%s", err, out)
	}
	t.Logf("clean run took %v", time.Since(cleanStart))
	wantEpisodes, wantFacts := graphCounts(t, clean)
	if wantEpisodes != 1200 || wantFacts == 0 {
		t.Fatalf("clean run stored %d episodes and %d facts, want 1200 and some", wantEpisodes, wantFacts)
	}

	killed := filepath.Join(dir, "killed")
	if err := os.MkdirAll(killed, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := serverProcess(t, ingestArgs(killed)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	progress := 0
	for progress < 100 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("no checkpoint progress within 2 minutes")
		}
		progress = checkpointTotal(filepath.Join(killed, "ck"))
		time.Sleep(20 * time.Millisecond) // polling interval, bounded by the deadline above
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred save, no cleanup
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if progress >= 1200 {
		t.Fatalf("the run finished (%d) before it was killed; nothing to resume", progress)
	}
	mid, _ := graphCounts(t, killed)
	t.Logf("killed with checkpoint at %d messages, %d episodes stored", progress, mid)

	out, err := serverProcess(t, ingestArgs(killed)...).Output()
	if err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	var sum struct {
		Resumed, Sent, Created, Existing, Failed int
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("summary %s: %v", out, err)
	}
	if sum.Resumed < progress || sum.Resumed+sum.Sent != 1200 || sum.Failed != 0 {
		t.Errorf("resumed run summary %+v: want ≥ %d resumed, resumed+sent = 1200, nothing failed", sum, progress)
	}
	gotEpisodes, gotFacts := graphCounts(t, killed)
	if gotEpisodes != wantEpisodes || gotFacts != wantFacts {
		t.Errorf("after kill and resume: %d episodes, %d facts; a clean run stores %d and %d", gotEpisodes, gotFacts, wantEpisodes, wantFacts)
	}
}

func checkpointTotal(path string) int {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var ck struct {
		Threads map[string]int `json:"threads"`
	}
	if json.Unmarshal(raw, &ck) != nil {
		return 0
	}
	n := 0
	for _, v := range ck.Threads {
		n += v
	}
	return n
}

// TestIngestDefaults checks the --batch and --concurrency defaults, which
// depend on --extract, and that values given are kept.
func TestIngestDefaults(t *testing.T) {
	tests := []struct {
		name                   string
		given                  ingestFlags
		wantBatch, wantThreads int
	}{
		{"extraction off", ingestFlags{}, 500, 16},
		{"extraction on", ingestFlags{extract: true}, 50, 4},
		{"given values kept", ingestFlags{batch: 7, concurrency: 3}, 7, 3},
		{"given values kept with extraction", ingestFlags{extract: true, batch: 7, concurrency: 3}, 7, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.given
			f.setDefaults()
			if f.batch != tc.wantBatch || f.concurrency != tc.wantThreads {
				t.Errorf("batch %d, concurrency %d; want %d, %d", f.batch, f.concurrency, tc.wantBatch, tc.wantThreads)
			}
		})
	}
}
