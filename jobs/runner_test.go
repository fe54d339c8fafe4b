package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/chatlog/gen/gentest"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/jobs"
	"github.com/kgmem/kgmem/jobs/jobstest"
	"github.com/kgmem/kgmem/memory"
	openai "github.com/sashabaranov/go-openai"
)

// waitDone polls until every job has finished, failing after a deadline.
func waitDone(t *testing.T, r *jobs.Runner, ns kgmem.Namespace, ids []string) []jobs.Job {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		out := make([]jobs.Job, 0, len(ids))
		for _, id := range ids {
			j, err := r.Get(context.Background(), ns, id)
			if err != nil {
				t.Fatal(err)
			}
			if j.Status != jobs.StatusSucceeded && j.Status != jobs.StatusFailed {
				break
			}
			out = append(out, j)
		}
		if len(out) == len(ids) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs not done within a minute: %d of %d", len(out), len(ids))
		}
		time.Sleep(10 * time.Millisecond) // polling interval under the deadline above
	}
}

func message(i int) episodes.Message {
	return episodes.Message{ID: fmt.Sprintf("m%d", i), Name: "Ann Lee", Content: fmt.Sprintf("Ann Lee enjoys hobby%c. Note %d.", 'a'+i, i),
		Timestamp: time.Date(2024, 1, 1, 9, i, 0, 0, time.UTC)}
}

// TestDebounceCoalescing posts ten one-message jobs on one thread: within a
// debounce window they share one extraction call; one at a time, each costs
// its own.
func TestDebounceCoalescing(t *testing.T) {
	const ns = kgmem.Namespace("coalesce")
	cases := []struct {
		name      string
		debounce  time.Duration
		oneByOne  bool
		wantCalls int // extraction calls
	}{
		{"ten messages arriving one by one, no window", 0, true, 10},
		{"ten messages in a burst within a 1s window", time.Second, false, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			llm := gentest.LLM(t, 0)
			eng, _ := gentest.Engine(t, t.TempDir(), llm)
			r, err := jobs.Open(context.Background(), jobs.Config{Engine: eng, DataDir: t.TempDir(), Workers: 2, Debounce: tc.debounce})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var ids []string
			for i := range 10 {
				j, err := r.Submit(context.Background(), memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true, Messages: []episodes.Message{message(i)}})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, j.ID)
				if tc.oneByOne {
					waitDone(t, r, ns, []string{j.ID})
				}
			}
			done := waitDone(t, r, ns, ids)
			facts := 0
			for i, j := range done {
				if j.Status != jobs.StatusSucceeded || j.Result == nil || len(j.Result.Episodes) != 1 || !j.Result.Episodes[0].Created ||
					j.Result.Episodes[0].MessageID != fmt.Sprintf("m%d", i) {
					t.Fatalf("job %d: %+v", i, j)
				}
				if i == 0 || !tc.oneByOne {
					facts = len(j.Result.Facts)
				} else {
					facts += len(j.Result.Facts)
				}
			}
			extractions := 0
			for _, req := range llm.Requests() {
				if strings.HasPrefix(llmtest.LastUserMessage(req), llmtest.ExtractionMarker) {
					extractions++
				}
			}
			if extractions != tc.wantCalls {
				t.Errorf("%d extraction calls, want %d", extractions, tc.wantCalls)
			}
			if facts != 10 {
				t.Errorf("%d facts reported, want 10 (one per message)", facts)
			}
			t.Logf("debounce %v: %d extraction calls, %d LLM calls in all (judge included) for 10 messages", tc.debounce, extractions, llm.ChatCalls())
		})
	}
}

func TestSubmitRejectsAndScopes(t *testing.T) {
	eng, _ := gentest.Engine(t, t.TempDir(), nil)
	r, err := jobs.Open(context.Background(), jobs.Config{Engine: eng, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	cases := []struct {
		name  string
		req   memory.IngestRequest
		kind  error
		field string
	}{
		{"empty content", memory.IngestRequest{Namespace: "a", ThreadID: "t", Messages: []episodes.Message{{Content: ""}}}, kgmem.ErrInvalid, "messages[0].content"},
		{"no messages", memory.IngestRequest{Namespace: "a", ThreadID: "t"}, kgmem.ErrInvalid, "messages"},
		{"extraction without LLM", memory.IngestRequest{Namespace: "a", ThreadID: "t", Extract: true, Messages: []episodes.Message{{Content: "x"}}}, kgmem.ErrConflict, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Submit(ctx, tc.req)
			var fe *kgmem.FieldError
			if !errors.Is(err, tc.kind) || (tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field)) {
				t.Errorf("error %v, want %v %s", err, tc.kind, tc.field)
			}
		})
	}
	j, err := r.Submit(ctx, memory.IngestRequest{Namespace: "a", ThreadID: "t", Messages: []episodes.Message{{Content: "hello"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "b", j.ID); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("job of namespace a read as b: %v, want not found", err)
	}
	if _, err := r.Get(ctx, "a", "job_nope"); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("unknown job: %v, want not found", err)
	}
	done := waitDone(t, r, "a", []string{j.ID})
	if done[0].Status != jobs.StatusSucceeded || done[0].Progress != (jobs.Progress{Messages: 1, Stored: 1}) {
		t.Errorf("job %+v", done[0])
	}
}

// flaky fails its first calls as an unavailable backend, then ingests.
type flaky struct {
	*memory.Engine
	failures atomic.Int64
	calls    atomic.Int64
}

func (f *flaky) Ingest(ctx context.Context, req memory.IngestRequest) (memory.IngestResult, error) {
	f.calls.Add(1)
	if f.failures.Add(-1) >= 0 {
		return memory.IngestResult{}, fmt.Errorf("graph store: %w", kgmem.ErrUnavailable)
	}
	return f.Engine.Ingest(ctx, req)
}

// TestUnavailableBackendDelaysJobs: jobs that meet an outage stay queued and
// succeed once it is over.
func TestUnavailableBackendDelaysJobs(t *testing.T) {
	eng, g := gentest.Engine(t, t.TempDir(), nil)
	f := &flaky{Engine: eng}
	f.failures.Store(2)
	r, err := jobs.Open(context.Background(), jobs.Config{Engine: f, DataDir: t.TempDir(), Workers: 2,
		RetryMin: 10 * time.Millisecond, RetryMax: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const ns = kgmem.Namespace("flaky")
	var ids []string
	for i := range 3 {
		j, err := r.Submit(context.Background(), memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{message(i)}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	for i, j := range waitDone(t, r, ns, ids) {
		if j.Status != jobs.StatusSucceeded {
			t.Errorf("job %d: %s %s", i, j.Status, j.Error)
		}
	}
	eps, err := g.ListEpisodes(context.Background(), ns, kgmem.Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 3 || f.calls.Load() < 3 {
		t.Errorf("%d episodes after %d engine calls, want 3 after at least 3", len(eps), f.calls.Load())
	}
}

func TestFileRecords(t *testing.T) {
	jobstest.Run(t, func(t *testing.T) (kgmem.JobRecords, kgmem.JobRecords) {
		path := filepath.Join(t.TempDir(), "jobs.db")
		a, err := jobs.OpenFile(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := jobs.OpenFile(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close(); b.Close() })
		return a, b
	})
}

// dyingEngine ingests, then hangs until its server is stopped: the server
// dies after the job's write and before recording its outcome.
type dyingEngine struct {
	*memory.Engine
	wrote chan struct{}
}

func (d *dyingEngine) Ingest(ctx context.Context, req memory.IngestRequest) (memory.IngestResult, error) {
	res, err := d.Engine.Ingest(ctx, req)
	if err == nil {
		d.wrote <- struct{}{}
	}
	<-ctx.Done()
	return res, ctx.Err()
}

// deadRecords are a dead server's view of shared records: once dead, it
// renews and claims nothing.
type deadRecords struct {
	kgmem.JobRecords
	dead atomic.Bool
}

func (d *deadRecords) Renew(ctx context.Context, owner string, lease time.Duration) (int, error) {
	if d.dead.Load() {
		return 0, errors.New("server is dead")
	}
	return d.JobRecords.Renew(ctx, owner, lease)
}

func (d *deadRecords) Claim(ctx context.Context, owner string, lease time.Duration, own bool, limit int) ([]kgmem.JobRecord, error) {
	if d.dead.Load() {
		return nil, errors.New("server is dead")
	}
	return d.JobRecords.Claim(ctx, owner, lease, own, limit)
}

// TestJobsOfADeadServerAreTakenOver: server A accepts three jobs, stores
// the first and dies before recording it; server B, on the same records,
// takes every job over once A's lease runs out and runs it, and every
// message is stored exactly once.
func TestJobsOfADeadServerAreTakenOver(t *testing.T) {
	ctx := context.Background()
	shared, err := jobs.OpenFile(ctx, filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	eng, g := gentest.Engine(t, t.TempDir(), nil)
	const ns = kgmem.Namespace("takeover")
	const lease = 300 * time.Millisecond

	dying := &dyingEngine{Engine: eng, wrote: make(chan struct{}, 1)}
	aRecs := &deadRecords{JobRecords: shared}
	a, err := jobs.Open(ctx, jobs.Config{Engine: dying, Records: aRecs, Owner: "srv_a", Lease: lease, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var ids []string
	for i := range 3 {
		j, err := a.Submit(ctx, memory.IngestRequest{Namespace: ns, ThreadID: fmt.Sprint("t", i), Messages: []episodes.Message{message(i)}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	<-dying.wrote // one job's messages are stored; A dies before recording it
	aRecs.dead.Store(true)

	b, err := jobs.Open(ctx, jobs.Config{Engine: eng, Records: shared, Owner: "srv_b", Lease: lease})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	created := 0
	for _, j := range waitDone(t, b, ns, ids) {
		if j.Status != jobs.StatusSucceeded || len(j.Result.Episodes) != 1 {
			t.Fatalf("job %s: %s %s", j.ID, j.Status, j.Error)
		}
		if j.Result.Episodes[0].Created {
			created++
		}
	}
	if created != 2 {
		t.Errorf("B created %d of the 3 messages, want 2 (A had stored one)", created)
	}
	eps, err := g.ListEpisodes(ctx, ns, kgmem.Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 3 {
		t.Errorf("%d episodes stored for 3 messages, want each exactly once", len(eps))
	}
}

// TestClosingReleasesJobs: a server that stops (SIGTERM) releases its
// queued jobs, and another on the same records runs them without waiting
// for the lease to run out.
func TestClosingReleasesJobs(t *testing.T) {
	ctx := context.Background()
	shared, err := jobs.OpenFile(ctx, filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	eng, _ := gentest.Engine(t, t.TempDir(), nil)
	const ns = kgmem.Namespace("release")
	a, err := jobs.Open(ctx, jobs.Config{Engine: eng, Records: shared, Owner: "srv_a", Lease: time.Hour, Debounce: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	j, err := a.Submit(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{message(0)}})
	if err != nil {
		t.Fatal(err)
	}
	// B looks for released jobs every third of its lease: within a second.
	b, err := jobs.Open(ctx, jobs.Config{Engine: eng, Records: shared, Owner: "srv_b", Lease: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := a.Close(); err != nil { // still in its hour-long debounce window, under an hour-long lease
		t.Fatal(err)
	}
	if done := waitDone(t, b, ns, []string{j.ID}); done[0].Status != jobs.StatusSucceeded {
		t.Errorf("released job: %s %s", done[0].Status, done[0].Error)
	}
}

// TestInterruptedExtractionRunsAgain: a server stopped while its job waits
// for the LLM has stored the job's messages already (they are stored before
// extraction starts); the job, taken back at the next start, extracts their
// facts rather than finding the messages known and stopping there.
func TestInterruptedExtractionRunsAgain(t *testing.T) {
	ctx := context.Background()
	gate := make(chan struct{})
	var calls atomic.Int64
	answer := gentest.Responder(0)
	llm := llmtest.New(t, llmtest.WithResponder(func(req openai.ChatCompletionRequest) (llmtest.Reply, error) {
		calls.Add(1)
		<-gate
		return answer(req)
	}))
	t.Cleanup(func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	}) // before the fake server's Close, which waits for its calls
	eng, g := gentest.Engine(t, t.TempDir(), llm)
	dir := t.TempDir()
	const ns = kgmem.Namespace("interrupted")
	a, err := jobs.Open(ctx, jobs.Config{Engine: eng, DataDir: dir, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	j, err := a.Submit(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true, Messages: []episodes.Message{message(0)}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for calls.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the job did not call the LLM within a minute")
		}
		time.Sleep(10 * time.Millisecond) // polling interval under the deadline above
	}
	if eps, err := g.ListEpisodes(ctx, ns, kgmem.Page{Limit: 10}); err != nil || len(eps) != 1 {
		t.Fatalf("while extracting: %d episodes (%v), want the message stored", len(eps), err)
	}
	if err := a.Close(); err != nil { // the server stops mid-extraction
		t.Fatal(err)
	}
	close(gate)

	b, err := jobs.Open(ctx, jobs.Config{Engine: eng, DataDir: dir, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	done := waitDone(t, b, ns, []string{j.ID})[0]
	if done.Status != jobs.StatusSucceeded || done.Result == nil || len(done.Result.Facts) == 0 {
		t.Fatalf("job after the restart: %s %s %+v, want its facts extracted", done.Status, done.Error, done.Result)
	}
	facts, err := eng.ListFacts(ctx, memory.ListFactsRequest{Namespace: ns})
	if err != nil || len(facts) == 0 {
		t.Fatalf("%d facts stored (%v), want the message's", len(facts), err)
	}
}
