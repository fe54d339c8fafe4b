package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/polltest"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/jobs"
	openai "github.com/sashabaranov/go-openai"
)

// replica is one kgmem server process of a deployment on one Neo4j + Milvus.
type replica struct {
	name string
	dir  string
	cmd  *exec.Cmd
	c    *client.Client
}

// deployment starts kgmem servers sharing one Neo4j scope and one Milvus
// collection, each with its own data directory and port.
type deployment struct {
	t *testing.T
	// flags configure every command; jobFlags only serve.
	flags, jobFlags []string
	admin           string
	llm             *llmtest.Server
	collection      string
}

// newDeployment configures a deployment whose servers read Milvus at the
// given consistency level.
func newDeployment(t *testing.T, consistency string) *deployment {
	uri, milvusAddr := testenv.Neo4jURI(t), testenv.MilvusAddr(t)
	id := strings.ReplaceAll(kgmem.NewID(""), "_", "")
	d := &deployment{t: t, admin: "admin-" + id + id, collection: "kgmem_test_replicas" + id}
	// Each extraction takes 50 ms of a scripted LLM: jobs are still running
	// when a server is killed.
	d.llm = llmtest.New(t, llmtest.WithResponder(func(openai.ChatCompletionRequest) (llmtest.Reply, error) {
		time.Sleep(50 * time.Millisecond)
		return llmtest.Text(llmtest.ExtractionJSON(nil, nil)), nil
	}))
	d.flags = []string{"--graph", "neo4j", "--neo4j-uri", uri, "--neo4j-scope", "r" + id,
		"--vector", "milvus", "--milvus-addr", milvusAddr, "--milvus-collection", d.collection, "--milvus-consistency", consistency,
		"--sweep-interval", "0", "--llm-base-url", d.llm.URL(), "--llm-model", "scripted"}
	// Searches get generous deadlines: the test checks what replicas share,
	// on two cores Neo4j and Milvus share with other suites, where a search
	// has waited past the default 5 s on Neo4j (cmd/load measures latency).
	d.jobFlags = []string{"--debounce", "0", "--job-workers", "2", "--job-lease", "2s", "--search-timeout", "30s", "--retriever-timeout", "20s"}
	t.Cleanup(func() {
		// Drop what the deployment wrote: the scope's namespaces and the collection.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		quiet := slog.New(slog.DiscardHandler)
		b, err := openBackends(ctx, d.config(t.TempDir()), quiet)
		if err != nil {
			t.Errorf("cleanup: %v", err)
			return
		}
		defer b.close(quiet)
		nss, _ := b.graph.Namespaces(ctx)
		for _, ns := range nss {
			_, _ = b.engine.PurgeNamespace(ctx, ns)
		}
		if shared, ok := b.vectors.(interface{ Drop(context.Context) error }); ok {
			_ = shared.Drop(ctx)
		}
	})
	return d
}

// config is the deployment's configuration for a maintenance command.
func (d *deployment) config(dir string) *config {
	c, err := parseConfig(cmdCheck, append([]string{"--data-dir", dir, "--log-level", "error"}, d.flags...)...)
	if err != nil {
		d.t.Fatal(err)
	}
	return c
}

// start runs a server on a data directory of its own and waits until it is ready.
func (d *deployment) start(name string) *replica {
	t := d.t
	t.Helper()
	addr := freeAddr(t)
	r := &replica{name: name, dir: t.TempDir()}
	r.cmd = serverProcess(t, slices.Concat([]string{"serve", "--addr", addr, "--data-dir", r.dir}, d.flags, d.jobFlags)...)
	r.cmd.Env = append(r.cmd.Env, adminKeyVar+"="+d.admin)
	r.cmd.Stderr = os.Stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.kill() })
	var err error
	if r.c, err = client.New("http://"+addr, client.WithAPIKey(d.admin)); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 2*time.Minute, name+" to be ready", func() bool {
		_, err := r.c.Readyz(context.Background())
		return err == nil
	})
	return r
}

// kill stops the server with SIGKILL: no drain, no release of its leases.
func (r *replica) kill() {
	if r.cmd.ProcessState == nil {
		_ = r.cmd.Process.Signal(syscall.SIGKILL)
		_ = r.cmd.Wait()
	}
}

// TestReplicas runs three server processes on one Neo4j + Milvus and checks
// that no state only one of them holds matters: concurrent writes, keys,
// a killed server's jobs, purges.
func TestReplicas(t *testing.T) {
	d := newDeployment(t, "Strong") // read-your-writes through any server
	servers := []*replica{d.start("A"), d.start("B"), d.start("C")}
	a, b, c := servers[0], servers[1], servers[2]
	ctx := t.Context()

	t.Run("ConcurrentIngestEqualsOneServer", func(t *testing.T) {
		facts := func(k int) wire.FactsRequest {
			return wire.FactsRequest{Facts: []wire.Triple{
				{Subject: "Bob", SubjectType: "Person", Predicate: "lives_in", Object: fmt.Sprintf("City %d", k%4), ObjectType: "Place"},
				{Subject: "Bob", SubjectType: "Person", Predicate: "knows", Object: "Carol", ObjectType: "Person"},
				{Subject: "Carol", SubjectType: "Person", Predicate: "works_at", Object: "Acme", ObjectType: "Organization"},
			}}
		}
		messages := func(k int) wire.MemoriesRequest {
			return wire.MemoriesRequest{ThreadID: "chat", Messages: []wire.Message{
				{ID: fmt.Sprintf("m%d", k%6), Name: "Bob", Content: fmt.Sprintf("Note %d: Bob met Carol at Acme.", k%6), Timestamp: "2024-03-01T08:00:00Z"},
			}}
		}
		const rounds = 12
		ingest := func(s *replica, ns string, k int) error {
			f := facts(k)
			f.Namespace = kgmem.Namespace(ns)
			if _, err := s.c.AddFacts(ctx, f); err != nil {
				return fmt.Errorf("%s facts: %w", s.name, err)
			}
			m := messages(k)
			m.Namespace = kgmem.Namespace(ns)
			if _, _, err := s.c.AddMemories(ctx, m); err != nil {
				return fmt.Errorf("%s messages: %w", s.name, err)
			}
			return nil
		}
		// The same input: once through one server in order, once through
		// all three at the same time.
		for k := range rounds {
			if err := ingest(a, "single", k); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		for i, s := range servers {
			for k := i; k < rounds; k += len(servers) {
				wg.Go(func() {
					if err := ingest(s, "concurrent", k); err != nil {
						t.Error(err)
					}
				})
			}
		}
		wg.Wait()
		single, concurrent := summarise(t, a.c, "single"), summarise(t, c.c, "concurrent")
		if !slices.Equal(single.entities, concurrent.entities) || !maps(single.current, concurrent.current) || single.episodes != concurrent.episodes {
			t.Errorf("three servers at once: %+v\none server: %+v", concurrent, single)
		}
		if concurrent.current["lives_in"] != 1 || len(concurrent.entities) != 7 {
			t.Errorf("concurrent ingest: %+v; want one current lives_in and seven entities (Bob, Carol, Acme, four cities)", concurrent)
		}
		checkConsistent(t, d)
	})

	t.Run("KeysAreShared", func(t *testing.T) {
		var out bytes.Buffer
		if err := keysWith(ctx, append([]string{"create", "--name", "agent", "--prefix", "team", "--json", "--data-dir", a.dir}, d.flags...), &out); err != nil {
			t.Fatal(err)
		}
		var created struct{ ID, Key string }
		if err := json.Unmarshal(out.Bytes(), &created); err != nil {
			t.Fatal(err)
		}
		search := func(s *replica) error {
			kc, err := client.New(s.c.BaseURL(), client.WithAPIKey(created.Key))
			if err != nil {
				return err
			}
			_, err = kc.Search(ctx, wire.SearchRequest{Namespace: "team/x", Query: "anything"})
			return err
		}
		for _, s := range servers {
			if err := search(s); err != nil {
				t.Errorf("the key created on A, through %s: %v", s.name, err)
			}
		}
		if err := keysWith(ctx, append([]string{"revoke", "--data-dir", b.dir}, append(d.flags, created.ID)...), io.Discard); err != nil {
			t.Fatal(err)
		}
		for _, s := range []*replica{a, c} {
			var pe *client.Error
			if err := search(s); !errors.As(err, &pe) || pe.Status != http.StatusUnauthorized {
				t.Errorf("the key revoked on B, at the next request through %s: %v; want 401", s.name, err)
			}
		}
	})

	t.Run("KilledServersJobsAreTakenOver", func(t *testing.T) {
		const ns, jobsN, perJob = "crash", 16, 3
		var ids []string
		for j := range jobsN {
			req := wire.MemoriesRequest{Namespace: ns, ThreadID: fmt.Sprintf("t%d", j%4), Extract: true}
			for m := range perJob {
				req.Messages = append(req.Messages, wire.Message{ID: fmt.Sprintf("j%d-m%d", j, m), Name: "Ann",
					Content: fmt.Sprintf("Job %d message %d: the ferry leaves at dawn.", j, m), Timestamp: "2024-03-01T08:00:00Z"})
			}
			job, err := a.c.AddMemoriesAsync(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, job.ID)
		}
		succeeded := func(s *replica) int {
			n := 0
			for _, id := range ids {
				if j, err := s.c.GetJob(ctx, ns, id); err == nil && j.Status == jobs.StatusSucceeded {
					n++
				}
			}
			return n
		}
		polltest.Until(t, time.Minute, "A's first jobs to succeed", func() bool { return succeeded(b) > 0 })
		a.kill() // mid-queue: its jobs are queued or running under its leases
		before := succeeded(b)
		if before == jobsN {
			t.Fatalf("all %d jobs finished before the kill; the test proves nothing", jobsN)
		}
		polltest.Until(t, 2*time.Minute, "B or C to finish A's jobs", func() bool { return succeeded(c) == jobsN })
		eps := 0
		seen := map[string]bool{}
		for ep, err := range b.c.Episodes(ctx, client.EpisodeQuery{Namespace: ns, Limit: 200}) {
			if err != nil {
				t.Fatal(err)
			}
			eps++
			seen[ep.MessageID] = true
		}
		if eps != jobsN*perJob || len(seen) != jobsN*perJob {
			t.Errorf("%d episodes (%d distinct messages) after the takeover, want %d, each once", eps, len(seen), jobsN*perJob)
		}
		t.Logf("A killed with %d of %d jobs succeeded; B and C finished the rest", before, jobsN)
		checkConsistent(t, d)
	})

	t.Run("PurgeIsSeenEverywhere", func(t *testing.T) {
		const ns = "purged"
		if _, err := b.c.AddFacts(ctx, wire.FactsRequest{Namespace: ns, Facts: []wire.Triple{{Subject: "Dana", Predicate: "plays", Object: "Chess"}}}); err != nil {
			t.Fatal(err)
		}
		found, err := c.c.Search(ctx, wire.SearchRequest{Namespace: ns, Query: "Dana chess"})
		if err != nil || len(found.Facts) == 0 {
			t.Fatalf("a fact written through B, searched through C at once: %d facts, %v", len(found.Facts), err)
		}
		if _, err := b.c.PurgeNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
		after, err := c.c.Search(ctx, wire.SearchRequest{Namespace: ns, Query: "Dana chess"})
		if err != nil || len(after.Facts)+len(after.Entities)+len(after.Episodes) != 0 {
			t.Errorf("search through C after the purge through B: %+v, %v; want nothing", after, err)
		}
		checkConsistent(t, d)
	})
}

// graphSummary is what must not depend on which server wrote a namespace.
type graphSummary struct {
	entities []string
	current  map[string]int // current facts per predicate
	episodes int
}

func summarise(t *testing.T, c *client.Client, ns kgmem.Namespace) graphSummary {
	t.Helper()
	ctx := t.Context()
	s := graphSummary{current: map[string]int{}}
	for e, err := range c.Entities(ctx, client.EntityQuery{Namespace: ns, Limit: 100}) {
		if err != nil {
			t.Fatal(err)
		}
		s.entities = append(s.entities, e.Name)
	}
	slices.Sort(s.entities)
	for f, err := range c.Facts(ctx, client.FactQuery{Namespace: ns, CurrentOnly: true, Limit: 100}) {
		if err != nil {
			t.Fatal(err)
		}
		s.current[f.Predicate]++
	}
	for _, err := range c.Episodes(ctx, client.EpisodeQuery{Namespace: ns, Limit: 100}) {
		if err != nil {
			t.Fatal(err)
		}
		s.episodes++
	}
	return s
}

func maps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkConsistent runs `server check` on the deployment: no vector missing,
// none orphaned.
func checkConsistent(t *testing.T, d *deployment) {
	t.Helper()
	var out bytes.Buffer
	err := run(t.Context(), append([]string{"check", "--data-dir", t.TempDir(), "--log-level", "error"}, d.flags...), &out, io.Discard)
	var sum checkSummary
	if jerr := json.Unmarshal(out.Bytes(), &sum); err != nil || jerr != nil || !sum.Consistent {
		t.Errorf("server check: %v %v\n%s", err, jerr, out.String())
	}
}

// TestLoadOnTwoReplicas runs the load tool (cmd/load) against one server,
// then against two servers of the same deployment sharing its clients:
// neither run may get a 5xx or lose a request, and the throughputs and
// their ratio are logged (no timing is asserted).
// KGMEM_REPLICA_LOAD sets each run's duration (default 8s) and
// KGMEM_REPLICA_CONSISTENCY the servers' Milvus consistency (default Strong).
func TestLoadOnTwoReplicas(t *testing.T) {
	consistency := cmp.Or(os.Getenv("KGMEM_REPLICA_CONSISTENCY"), "Strong")
	d := newDeployment(t, consistency)
	a, b := d.start("A"), d.start("B")
	duration := cmp.Or(os.Getenv("KGMEM_REPLICA_LOAD"), "8s")
	bin := filepath.Join(t.TempDir(), "load")
	build := exec.Command("go", "build", "-o", bin, "../load")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("build cmd/load: %v", err)
	}
	load := func(urls ...string) loadReport {
		t.Helper()
		cmd := exec.Command(bin, "-url", strings.Join(urls, ","), "-key", d.admin, "-clients", "16", "-namespaces", "8",
			"-duration", duration, "-settle", "0", "-json")
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		runErr := cmd.Run()
		var rep loadReport
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("load against %v: %v (%v)\n%s", urls, err, runErr, errs.String())
		}
		if runErr != nil || rep.Errors5xx > 0 || rep.Failed > 0 {
			t.Errorf("load against %v: %d 5xx, %d without answer (%v)\n%s", urls, rep.Errors5xx, rep.Failed, runErr, errs.String())
		}
		return rep
	}
	one := load(a.c.BaseURL())
	two := load(a.c.BaseURL(), b.c.BaseURL())
	t.Logf("Milvus %s, %s per run: one server %.0f req/s (search p50 %.0f ms, p99 %.0f ms; ingest p50 %.0f ms); two servers %.0f req/s (search p50 %.0f ms, p99 %.0f ms; ingest p50 %.0f ms); ratio %.2f",
		consistency, duration, one.TotalPerS, one.Ops["search"].P50Ms, one.Ops["search"].P99Ms, one.Ops["ingest"].P50Ms,
		two.TotalPerS, two.Ops["search"].P50Ms, two.Ops["search"].P99Ms, two.Ops["ingest"].P50Ms, two.TotalPerS/one.TotalPerS)
}

// loadReport is the part of cmd/load's JSON report the test reads.
type loadReport struct {
	TotalPerS float64 `json:"total_per_second"`
	Errors5xx int     `json:"errors_5xx"`
	Failed    int     `json:"transport_errors"`
	Ops       map[string]struct {
		P50Ms float64 `json:"p50_ms"`
		P99Ms float64 `json:"p99_ms"`
	} `json:"ops"`
}
