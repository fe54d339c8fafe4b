package kgmem

import (
	"context"
	"time"
)

// JobStatus is a background job's state.
type JobStatus string

// Background job states, in order.
const (
	JobQueued    JobStatus = "queued"
	JobRunning   JobStatus = "running"
	JobSucceeded JobStatus = "succeeded"
	JobFailed    JobStatus = "failed"
)

// Finished reports whether a job in this state will not run again.
func (s JobStatus) Finished() bool { return s == JobSucceeded || s == JobFailed }

// JobRecord is a background ingest job as JobRecords keep it. Request and
// Result are the runner's JSON, opaque to the records.
type JobRecord struct {
	ID        string
	Namespace Namespace
	ThreadID  string
	Status    JobStatus
	Request   []byte
	Result    []byte
	Error     string
	// CoalescedWith lists the jobs run in the same engine call.
	CoalescedWith []string
	CreatedAt     time.Time
	StartedAt     *time.Time
	FinishedAt    *time.Time
	// Seq orders the jobs as they were accepted (set by Insert).
	Seq int64
}

// JobRecords persists background jobs and who runs them. Every unfinished
// job is held by one owner (a server, named by a stable id) under a lease
// the owner renews, timed by the records' own clock (a shared database's,
// so the servers' clocks do not matter); a job whose lease ran out — its server died or lost
// the backend — is claimed by another owner, which runs it again (the
// engine's idempotent ingest makes a second run write nothing twice).
//
// Implementations: jobs' SQLite file in one server's data directory, and
// graph/neo4j's job records, shared by every server on the database. Both
// pass the suite in jobs/jobstest.
type JobRecords interface {
	// Insert stores a new queued job held by owner for lease, and sets its
	// Seq. An id already stored is an error.
	Insert(ctx context.Context, r *JobRecord, owner string, lease time.Duration) error
	// Claim gives owner, for lease, up to limit unfinished jobs whose lease
	// ran out (and, with own, those it already holds), oldest first, and
	// returns them. Two owners never claim the same job at once.
	Claim(ctx context.Context, owner string, lease time.Duration, own bool, limit int) ([]JobRecord, error)
	// Renew extends by lease, from now, the lease of every unfinished job
	// owner holds; it returns how many it holds.
	Renew(ctx context.Context, owner string, lease time.Duration) (int, error)
	// MarkRunning records that the jobs' engine call started at `at`.
	MarkRunning(ctx context.Context, ids []string, at time.Time) error
	// MarkQueued puts running jobs back in the queue (a retry later).
	MarkQueued(ctx context.Context, ids []string) error
	// Finish records a job's outcome (Status, Result, Error,
	// CoalescedWith, StartedAt, FinishedAt) and ends its lease.
	Finish(ctx context.Context, r JobRecord) error
	// Get returns the job id of namespace ns, or an error wrapping
	// ErrNotFound (a job of another namespace is not found).
	Get(ctx context.Context, ns Namespace, id string) (JobRecord, error)
	// Recent returns the latest jobs of ns, newest first, at most limit.
	Recent(ctx context.Context, ns Namespace, limit int) ([]JobRecord, error)
	// Close releases the records (a shared backend's connection is its
	// owner's to close).
	Close() error
}
