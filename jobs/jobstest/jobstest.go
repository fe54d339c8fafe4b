// Package jobstest is the conformance suite of kgmem.JobRecords. Every
// backend (jobs' SQLite file, graph/neo4j's shared job records) runs it from
// its own tests:
//
//	jobstest.Run(t, func(t *testing.T) (kgmem.JobRecords, kgmem.JobRecords) { … })
//
// The opener returns two handles on the same, initially empty, records —
// two servers of one deployment — so the suite checks leases and takeover
// between them.
package jobstest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// Opener returns two handles on the same empty records and registers their
// cleanup with t.Cleanup.
type Opener func(t *testing.T) (kgmem.JobRecords, kgmem.JobRecords)

// Run runs the suite.
func Run(t *testing.T, open Opener) {
	t.Run("Records", func(t *testing.T) { testRecords(t, open) })
	t.Run("Leases", func(t *testing.T) { testLeases(t, open) })
	t.Run("ClaimsAreExclusive", func(t *testing.T) { testExclusive(t, open) })
	t.Run("FinishedJobsStayFinished", func(t *testing.T) { testFinished(t, open) })
}

const (
	nsA      = kgmem.Namespace("jobs-a")
	nsB      = kgmem.Namespace("jobs-b")
	long     = time.Hour
	deadline = 30 * time.Second
)

func record(id string, ns kgmem.Namespace, created time.Time) kgmem.JobRecord {
	return kgmem.JobRecord{ID: id, Namespace: ns, ThreadID: "t1", Status: kgmem.JobQueued,
		Request: []byte(`{"messages":[{"id":"` + id + `"}]}`), CreatedAt: created}
}

func insert(t *testing.T, rec kgmem.JobRecords, owner string, lease time.Duration, recs ...kgmem.JobRecord) {
	t.Helper()
	for i := range recs {
		if err := rec.Insert(context.Background(), &recs[i], owner, lease); err != nil {
			t.Fatalf("Insert %s: %v", recs[i].ID, err)
		}
	}
}

func ids(recs []kgmem.JobRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

func testRecords(t *testing.T, open Opener) {
	ctx := context.Background()
	rec, other := open(t)
	base := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	if _, err := rec.Get(ctx, nsA, "job_unknown"); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("Get unknown: %v, want ErrNotFound", err)
	}
	jobs := []kgmem.JobRecord{record("job_1", nsA, base), record("job_2", nsA, base.Add(time.Second)), record("job_3", nsB, base)}
	insert(t, rec, "srv_a", long, jobs...)
	for i := 1; i < len(jobs); i++ {
		if jobs[i].Seq <= jobs[i-1].Seq {
			t.Errorf("Seq of later insert %d <= earlier %d", jobs[i].Seq, jobs[i-1].Seq)
		}
	}
	dup := record("job_1", nsA, base)
	if err := rec.Insert(ctx, &dup, "srv_a", long); err == nil {
		t.Error("Insert of an id already stored succeeded")
	}
	got, err := other.Get(ctx, nsA, "job_1")
	if err != nil {
		t.Fatalf("Get through the other handle: %v", err)
	}
	want := jobs[0]
	got.Seq = want.Seq
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get = %+v\nwant %+v", got, want)
	}
	if _, err := rec.Get(ctx, nsB, "job_1"); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("Get of another namespace's job: %v, want ErrNotFound", err)
	}
	recent, err := other.Recent(ctx, nsA, 10)
	if err != nil || !slices.Equal(ids(recent), []string{"job_2", "job_1"}) {
		t.Errorf("Recent(nsA) = %v, %v; want newest first [job_2 job_1]", ids(recent), err)
	}
	if recent, err := rec.Recent(ctx, nsA, 1); err != nil || !slices.Equal(ids(recent), []string{"job_2"}) {
		t.Errorf("Recent(nsA, 1) = %v, %v", ids(recent), err)
	}

	started := base.Add(time.Minute)
	if err := other.MarkRunning(ctx, []string{"job_1"}, started); err != nil {
		t.Fatal(err)
	}
	if got, _ := rec.Get(ctx, nsA, "job_1"); got.Status != kgmem.JobRunning || got.StartedAt == nil || !got.StartedAt.Equal(started) {
		t.Errorf("after MarkRunning: status %s started %v", got.Status, got.StartedAt)
	}
	if err := rec.MarkQueued(ctx, []string{"job_1"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := other.Get(ctx, nsA, "job_1"); got.Status != kgmem.JobQueued || got.StartedAt != nil {
		t.Errorf("after MarkQueued: status %s started %v", got.Status, got.StartedAt)
	}
	finished := started.Add(time.Second)
	done := jobs[0]
	done.Status, done.Result, done.CoalescedWith = kgmem.JobSucceeded, []byte(`{"episodes":[]}`), []string{"job_2"}
	done.StartedAt, done.FinishedAt = &started, &finished
	if err := other.Finish(ctx, done); err != nil {
		t.Fatal(err)
	}
	got, err = rec.Get(ctx, nsA, "job_1")
	if err != nil {
		t.Fatal(err)
	}
	got.Seq = done.Seq
	if !reflect.DeepEqual(got, done) {
		t.Errorf("after Finish: %+v\nwant %+v", got, done)
	}
}

// claimUntil polls Claim until it returns n jobs in all or the deadline passes.
func claimUntil(t *testing.T, rec kgmem.JobRecords, owner string, n int) []kgmem.JobRecord {
	t.Helper()
	var out []kgmem.JobRecord
	end := time.Now().Add(deadline)
	for len(out) < n {
		got, err := rec.Claim(context.Background(), owner, long, false, 100)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got...)
		if time.Now().After(end) {
			t.Fatalf("%s claimed %d jobs within %s, want %d", owner, len(out), deadline, n)
		}
		time.Sleep(20 * time.Millisecond) // polling interval under the deadline above
	}
	return out
}

func testLeases(t *testing.T, open Opener) {
	ctx := context.Background()
	a, b := open(t)
	now := time.Now().UTC()
	insert(t, a, "srv_a", long, record("job_live", nsA, now))
	insert(t, a, "srv_a", 300*time.Millisecond, record("job_short", nsA, now))

	if got, err := b.Claim(ctx, "srv_b", long, true, 10); err != nil || len(got) != 0 {
		t.Fatalf("B claimed %v, %v before any lease ran out", ids(got), err)
	}
	if got, err := a.Claim(ctx, "srv_a", long, true, 10); err != nil || !slices.Equal(ids(got), []string{"job_live", "job_short"}) {
		t.Fatalf("A's own claim = %v, %v; want both, oldest first", ids(got), err)
	}
	if got, err := a.Claim(ctx, "srv_a", long, false, 10); err != nil || len(got) != 0 {
		t.Fatalf("A's claim of others' expired jobs = %v, %v; want none", ids(got), err)
	}
	// A's own claim renewed job_short for an hour; shorten it again and let it run out.
	if n, err := a.Renew(ctx, "srv_a", 300*time.Millisecond); err != nil || n != 2 {
		t.Fatalf("A's renewal = %d, %v; want 2 held", n, err)
	}
	got := claimUntil(t, b, "srv_b", 2)
	if !slices.Equal(ids(got), []string{"job_live", "job_short"}) {
		t.Fatalf("B took over %v, want both jobs whose lease ran out", ids(got))
	}
	if n, err := a.Renew(ctx, "srv_a", long); err != nil || n != 0 {
		t.Errorf("A renews %d jobs after B took them over (%v), want 0", n, err)
	}
	if n, err := b.Renew(ctx, "srv_b", long); err != nil || n != 2 {
		t.Errorf("B renews %d jobs (%v), want 2", n, err)
	}
	if got, err := a.Claim(ctx, "srv_a", long, true, 10); err != nil || len(got) != 0 {
		t.Errorf("A claimed %v (%v) under B's live lease", ids(got), err)
	}
	// A lease of zero releases at once.
	if _, err := b.Renew(ctx, "srv_b", 0); err != nil {
		t.Fatal(err)
	}
	if got := claimUntil(t, a, "srv_a", 2); len(got) != 2 {
		t.Errorf("A took back %v after B released them", ids(got))
	}
}

func testExclusive(t *testing.T, open Opener) {
	a, b := open(t)
	now := time.Now().UTC()
	var all []kgmem.JobRecord
	for i := range 40 {
		all = append(all, record(fmt.Sprintf("job_%02d", i), nsA, now))
	}
	insert(t, a, "srv_dead", 0, all...)
	var mu sync.Mutex
	claimed := map[string][]string{}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec, owner := a, fmt.Sprintf("srv_%d", w)
			if w%2 == 1 {
				rec = b
			}
			for {
				got, err := rec.Claim(context.Background(), owner, long, false, 3)
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, r := range got {
					claimed[r.ID] = append(claimed[r.ID], owner)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(claimed) != len(all) {
		t.Errorf("%d of %d jobs claimed", len(claimed), len(all))
	}
	for id, owners := range claimed {
		if len(owners) != 1 {
			t.Errorf("%s claimed by %v, want exactly one owner", id, owners)
		}
	}
}

func testFinished(t *testing.T, open Opener) {
	ctx := context.Background()
	a, b := open(t)
	now := time.Now().UTC()
	for _, status := range []kgmem.JobStatus{kgmem.JobSucceeded, kgmem.JobFailed} {
		r := record("job_"+string(status), nsA, now)
		insert(t, a, "srv_a", 0, r)
		r.Status, r.Error = status, "boom"
		r.StartedAt, r.FinishedAt = &now, &now
		if err := a.Finish(ctx, r); err != nil {
			t.Fatal(err)
		}
		if !status.Finished() {
			t.Errorf("%s.Finished() = false", status)
		}
	}
	if got, err := b.Claim(ctx, "srv_b", long, true, 10); err != nil || len(got) != 0 {
		t.Errorf("finished jobs claimed: %v, %v", ids(got), err)
	}
	if n, err := a.Renew(ctx, "srv_a", long); err != nil || n != 0 {
		t.Errorf("finished jobs still held: %d, %v", n, err)
	}
	if err := b.MarkRunning(ctx, []string{"job_succeeded"}, now); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Get(ctx, nsA, "job_succeeded"); got.Status != kgmem.JobSucceeded {
		t.Errorf("MarkRunning reopened a finished job: %s", got.Status)
	}
	if kgmem.JobQueued.Finished() || kgmem.JobRunning.Finished() {
		t.Error("an unfinished status reports Finished")
	}
}
