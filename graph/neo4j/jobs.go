package neo4j

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Node labels of background jobs.
const (
	// labelJob is a background ingest job (kgmem.JobRecord) with its owner
	// and lease.
	labelJob = "KgmemJob"
	// labelJobSeq is a scope's job counter, which orders jobs as accepted.
	labelJobSeq = "KgmemJobSeq"
)

// Jobs returns the background job records kept in this store's database,
// under its scope: every server on the database shares them, so a job
// accepted by one server and left behind when it dies (its lease runs out)
// is taken over by another. Leases are timed by Neo4j's clock.
func (s *Store) Jobs() kgmem.JobRecords { return jobRecords{s} }

// jobRecords implements kgmem.JobRecords on the store's database.
type jobRecords struct{ s *Store }

// Close is a no-op: the store owns the connection.
func (jobRecords) Close() error { return nil }

const (
	// unfinished matches a job that may still run.
	unfinished = `j.status IN ['queued', 'running']`
	jobReturn  = ` RETURN j.seq, j.id, j.namespace, j.thread_id, j.status, j.request, j.result, j.error, j.coalesced,
		j.created_at, j.started_at, j.finished_at`
)

func (r jobRecords) params(p map[string]any) map[string]any {
	p["scope"] = r.s.cfg.Scope
	return p
}

func (r jobRecords) Insert(ctx context.Context, rec *kgmem.JobRecord, owner string, lease time.Duration) error {
	err := r.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		recs, err := run(ctx, tx, `MERGE (c:`+labelJobSeq+` {scope: $scope})
			SET c.n = coalesce(c.n, 0) + 1
			CREATE (j:`+labelJob+` {scope: $scope, id: $id, namespace: $ns, thread_id: $thread, status: $status,
				request: $request, result: $result, error: $error, coalesced: $coalesced, created_at: $created,
				seq: c.n, owner: $owner, lease_until: timestamp() + $lease})
			RETURN j.seq`,
			r.params(map[string]any{"id": rec.ID, "ns": string(rec.Namespace), "thread": rec.ThreadID, "status": string(rec.Status),
				"request": string(rec.Request), "result": optString(rec.Result), "error": rec.Error, "coalesced": orEmpty(rec.CoalescedWith),
				"created": rec.CreatedAt.UTC().Format(time.RFC3339Nano), "owner": owner, "lease": lease.Milliseconds()}))
		if err == nil && len(recs) == 1 {
			rec.Seq, _ = recs[0].Values[0].(int64)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("neo4j: store job %s: %w", rec.ID, err)
	}
	return nil
}

// qClaim claims jobs whose lease ran out (or, with $own, the owner's).
// Setting a property first takes each candidate's write lock, so the check
// after it reads what a concurrent claimer committed: no two claim one job.
const qClaim = `MATCH (j:` + labelJob + ` {scope: $scope})
	WHERE ` + unfinished + ` AND (j.lease_until <= timestamp() OR ($own AND j.owner = $owner))
	WITH j ORDER BY j.seq LIMIT $limit
	SET j.claiming = true REMOVE j.claiming
	WITH j WHERE ` + unfinished + ` AND (j.lease_until <= timestamp() OR ($own AND j.owner = $owner))
	SET j.owner = $owner, j.lease_until = timestamp() + $lease` + jobReturn

func (r jobRecords) Claim(ctx context.Context, owner string, lease time.Duration, own bool, limit int) ([]kgmem.JobRecord, error) {
	var out []kgmem.JobRecord
	err := r.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		recs, err := run(ctx, tx, qClaim, r.params(map[string]any{"owner": owner, "own": own, "lease": lease.Milliseconds(), "limit": max(limit, 1)}))
		if err != nil {
			return err
		}
		out, err = decodeJobs(recs)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: claim jobs: %w", err)
	}
	slices.SortFunc(out, func(a, b kgmem.JobRecord) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}

func (r jobRecords) Renew(ctx context.Context, owner string, lease time.Duration) (int, error) {
	var n int64
	err := r.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		recs, err := run(ctx, tx, `MATCH (j:`+labelJob+` {scope: $scope}) WHERE j.owner = $owner AND `+unfinished+`
			SET j.lease_until = timestamp() + $lease RETURN count(j)`,
			r.params(map[string]any{"owner": owner, "lease": lease.Milliseconds()}))
		if err == nil && len(recs) == 1 {
			n, _ = recs[0].Values[0].(int64)
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("neo4j: renew job leases: %w", err)
	}
	return int(n), nil
}

// update runs a write over the jobs with these ids.
func (r jobRecords) update(ctx context.Context, what, set string, ids []string, params map[string]any) error {
	params["ids"] = ids
	err := r.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, `MATCH (j:`+labelJob+` {scope: $scope}) WHERE j.id IN $ids `+set, r.params(params))
		return err
	})
	if err != nil {
		return fmt.Errorf("neo4j: %s: %w", what, err)
	}
	return nil
}

func (r jobRecords) MarkRunning(ctx context.Context, ids []string, at time.Time) error {
	return r.update(ctx, "mark jobs running", `AND `+unfinished+` SET j.status = 'running', j.started_at = $at`, ids,
		map[string]any{"at": at.UTC().Format(time.RFC3339Nano)})
}

func (r jobRecords) MarkQueued(ctx context.Context, ids []string) error {
	return r.update(ctx, "requeue jobs", `AND j.status = 'running' SET j.status = 'queued', j.started_at = null`, ids, map[string]any{})
}

func (r jobRecords) Finish(ctx context.Context, rec kgmem.JobRecord) error {
	return r.update(ctx, "record job "+rec.ID+" outcome",
		`SET j.status = $status, j.result = $result, j.error = $error, j.coalesced = $coalesced,
			j.started_at = $started, j.finished_at = $finished, j.lease_until = 0`, []string{rec.ID},
		map[string]any{"status": string(rec.Status), "result": optString(rec.Result), "error": rec.Error,
			"coalesced": orEmpty(rec.CoalescedWith), "started": optTime(rec.StartedAt), "finished": optTime(rec.FinishedAt)})
}

func (r jobRecords) Get(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.JobRecord, error) {
	recs, err := r.s.read(ctx, `MATCH (j:`+labelJob+` {scope: $scope, id: $id}) WHERE j.namespace = $ns`+jobReturn,
		r.params(map[string]any{"id": id, "ns": string(ns)}))
	if err != nil {
		return kgmem.JobRecord{}, fmt.Errorf("neo4j: read job: %w", err)
	}
	jobs, err := decodeJobs(recs)
	if err != nil {
		return kgmem.JobRecord{}, err
	}
	if len(jobs) == 0 {
		return kgmem.JobRecord{}, fmt.Errorf("job %q in namespace %q: %w", id, ns, kgmem.ErrNotFound)
	}
	return jobs[0], nil
}

func (r jobRecords) Recent(ctx context.Context, ns kgmem.Namespace, limit int) ([]kgmem.JobRecord, error) {
	recs, err := r.s.read(ctx, `MATCH (j:`+labelJob+` {scope: $scope}) WHERE j.namespace = $ns`+jobReturn+` ORDER BY j.seq DESC LIMIT $limit`,
		r.params(map[string]any{"ns": string(ns), "limit": max(limit, 1)}))
	if err != nil {
		return nil, fmt.Errorf("neo4j: list jobs of %q: %w", ns, err)
	}
	return decodeJobs(recs)
}

// decodeJobs reads the values of jobReturn.
func decodeJobs(recs []*neo4j.Record) ([]kgmem.JobRecord, error) {
	out := make([]kgmem.JobRecord, 0, len(recs))
	for _, rec := range recs {
		v := rec.Values
		str := func(i int) string { s, _ := v[i].(string); return s }
		j := kgmem.JobRecord{ID: str(1), Namespace: kgmem.Namespace(str(2)), ThreadID: str(3), Status: kgmem.JobStatus(str(4)),
			Request: []byte(str(5)), Error: str(7)}
		j.Seq, _ = v[0].(int64)
		if s, ok := v[6].(string); ok {
			j.Result = []byte(s)
		}
		list, _ := v[8].([]any)
		for _, c := range list {
			s, _ := c.(string)
			j.CoalescedWith = append(j.CoalescedWith, s)
		}
		var err error
		if j.CreatedAt, err = time.Parse(time.RFC3339Nano, str(9)); err != nil {
			return nil, fmt.Errorf("neo4j: job %s created_at: %w", j.ID, err)
		}
		j.StartedAt, j.FinishedAt = parseOptTime(v[10]), parseOptTime(v[11])
		out = append(out, j)
	}
	return out, nil
}

func optString(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

func optTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func parseOptTime(v any) *time.Time {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil
	}
	return &t
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
