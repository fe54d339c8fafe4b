package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/sqlitefile"
	"github.com/kgmem/kgmem/memory"
)

// Status is a job's state.
type Status string

// Job states, in order.
const (
	StatusQueued    Status = "queued"
	StatusRunning   Status = "running"
	StatusSucceeded Status = "succeeded"
	StatusFailed    Status = "failed"
)

// Job is one accepted ingest request and what became of it.
type Job struct {
	ID        string          `json:"id"`
	Namespace kgmem.Namespace `json:"namespace"`
	ThreadID  string          `json:"thread_id"`
	Status    Status          `json:"status"`
	Progress  Progress        `json:"progress"`
	// Result is, once succeeded, the body the synchronous call returns: this
	// job's episodes, and the facts and LLM usage of the extraction it shared
	// with the jobs it was coalesced with.
	Result *memory.IngestResult `json:"result,omitempty"`
	Error  string               `json:"error,omitempty"`
	// CoalescedWith lists the other jobs of the same thread run in the same
	// engine call (one extraction for all).
	CoalescedWith []string   `json:"coalesced_with,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	StartedAt     *time.Time `json:"started_at,omitempty"`
	FinishedAt    *time.Time `json:"finished_at,omitempty"`

	request  memory.IngestRequest
	seq      int64
	attempts int // engine calls that met an unavailable backend
}

// Progress counts a job's messages.
type Progress struct {
	Messages int `json:"messages"`
	// Stored is how many are stored (new or known before); set when it succeeds.
	Stored int `json:"stored"`
}

// store keeps jobs in SQLite.
type store struct{ db *sql.DB }

const schema = `
CREATE TABLE IF NOT EXISTS jobs (
	seq         INTEGER PRIMARY KEY AUTOINCREMENT,
	id          TEXT NOT NULL UNIQUE,
	namespace   TEXT NOT NULL,
	thread_id   TEXT NOT NULL,
	status      TEXT NOT NULL,
	request     BLOB NOT NULL,
	result      BLOB,
	error       TEXT NOT NULL DEFAULT '',
	coalesced   TEXT NOT NULL DEFAULT '[]',
	created_at  TEXT NOT NULL,
	started_at  TEXT,
	finished_at TEXT
);
CREATE INDEX IF NOT EXISTS jobs_pending ON jobs(status, seq);`

func openStore(ctx context.Context, path string) (*store, error) {
	db, err := sqlitefile.Open(ctx, path, schema)
	if err != nil {
		return nil, fmt.Errorf("open job store: %w", err)
	}
	db.SetMaxOpenConns(1) // one writer; reads are short
	return &store{db: db}, nil
}

func (s *store) close() error { return s.db.Close() }

// requestJSON is the stored form of an ingest request.
type requestJSON struct {
	Namespace kgmem.Namespace `json:"namespace"`
	ThreadID  string          `json:"thread_id"`
	Messages  json.RawMessage `json:"messages"`
	Extract   bool            `json:"extract"`
	Schema    *kgmem.Schema   `json:"schema,omitempty"`
}

func (s *store) insert(ctx context.Context, j *Job) error {
	msgs, err := json.Marshal(j.request.Messages)
	if err != nil {
		return fmt.Errorf("encode job messages: %w", err)
	}
	req, err := json.Marshal(requestJSON{Namespace: j.Namespace, ThreadID: j.ThreadID, Messages: msgs, Extract: j.request.Extract, Schema: j.request.Schema})
	if err != nil {
		return fmt.Errorf("encode job: %w", err)
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO jobs(id, namespace, thread_id, status, request, created_at) VALUES(?,?,?,?,?,?)`,
		j.ID, string(j.Namespace), j.ThreadID, string(j.Status), req, j.CreatedAt.Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("store job: %w", err)
	}
	j.seq, _ = res.LastInsertId()
	return nil
}

func (s *store) markRunning(ctx context.Context, ids []string, at time.Time) error {
	for _, id := range ids {
		if _, err := s.db.ExecContext(ctx, `UPDATE jobs SET status=?, started_at=? WHERE id=?`, string(StatusRunning), at.Format(time.RFC3339Nano), id); err != nil {
			return fmt.Errorf("mark job %s running: %w", id, err)
		}
	}
	return nil
}

func (s *store) markQueued(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if _, err := s.db.ExecContext(ctx, `UPDATE jobs SET status=?, started_at=NULL WHERE id=?`, string(StatusQueued), id); err != nil {
			return fmt.Errorf("requeue job %s: %w", id, err)
		}
	}
	return nil
}

func (s *store) finish(ctx context.Context, j *Job) error {
	var result []byte
	if j.Result != nil {
		var err error
		if result, err = json.Marshal(j.Result); err != nil {
			return fmt.Errorf("encode job result: %w", err)
		}
	}
	co, _ := json.Marshal(j.CoalescedWith)
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET status=?, result=?, error=?, coalesced=?, finished_at=? WHERE id=?`,
		string(j.Status), result, j.Error, string(co), j.FinishedAt.Format(time.RFC3339Nano), j.ID)
	if err != nil {
		return fmt.Errorf("record job %s outcome: %w", j.ID, err)
	}
	return nil
}

const selectJob = `SELECT seq, id, namespace, thread_id, status, request, result, error, coalesced, created_at, started_at, finished_at FROM jobs`

func (s *store) get(ctx context.Context, ns kgmem.Namespace, id string) (Job, error) {
	rows, err := s.db.QueryContext(ctx, selectJob+` WHERE id=? AND namespace=?`, id, string(ns))
	if err != nil {
		return Job{}, fmt.Errorf("read job: %w", err)
	}
	jobs, err := scanJobs(rows)
	if err != nil {
		return Job{}, err
	}
	if len(jobs) == 0 {
		return Job{}, fmt.Errorf("job %q in namespace %q: %w", id, ns, kgmem.ErrNotFound)
	}
	return jobs[0], nil
}

// recent lists the latest jobs of ns, newest first, at most limit.
func (s *store) recent(ctx context.Context, ns kgmem.Namespace, limit int) ([]Job, error) {
	rows, err := s.db.QueryContext(ctx, selectJob+` WHERE namespace=? ORDER BY seq DESC LIMIT ?`, string(ns), limit)
	if err != nil {
		return nil, fmt.Errorf("list jobs of %q: %w", ns, err)
	}
	return scanJobs(rows)
}

// pending lists queued and running jobs in acceptance order.
func (s *store) pending(ctx context.Context) ([]Job, error) {
	rows, err := s.db.QueryContext(ctx, selectJob+` WHERE status IN (?, ?) ORDER BY seq`, string(StatusQueued), string(StatusRunning))
	if err != nil {
		return nil, fmt.Errorf("list pending jobs: %w", err)
	}
	return scanJobs(rows)
}

func scanJobs(rows *sql.Rows) ([]Job, error) {
	defer rows.Close()
	var out []Job
	for rows.Next() {
		var j Job
		var ns, status, created, co string
		var req, result []byte
		var started, finished sql.NullString
		if err := rows.Scan(&j.seq, &j.ID, &ns, &j.ThreadID, &status, &req, &result, &j.Error, &co, &created, &started, &finished); err != nil {
			return nil, fmt.Errorf("read job: %w", err)
		}
		j.Namespace, j.Status = kgmem.Namespace(ns), Status(status)
		var rj requestJSON
		if err := json.Unmarshal(req, &rj); err != nil {
			return nil, fmt.Errorf("job %s: stored request is corrupt: %w", j.ID, err)
		}
		j.request = memory.IngestRequest{Namespace: rj.Namespace, ThreadID: rj.ThreadID, Extract: rj.Extract, Schema: rj.Schema}
		if err := json.Unmarshal(rj.Messages, &j.request.Messages); err != nil {
			return nil, fmt.Errorf("job %s: stored messages are corrupt: %w", j.ID, err)
		}
		j.Progress.Messages = len(j.request.Messages)
		if len(result) > 0 {
			j.Result = &memory.IngestResult{}
			if err := json.Unmarshal(result, j.Result); err != nil {
				return nil, fmt.Errorf("job %s: stored result is corrupt: %w", j.ID, err)
			}
			j.Progress.Stored = len(j.Result.Episodes)
		}
		_ = json.Unmarshal([]byte(co), &j.CoalescedWith)
		j.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		j.StartedAt, j.FinishedAt = parseOptTime(started), parseOptTime(finished)
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read jobs: %w", err)
	}
	return out, nil
}

func parseOptTime(s sql.NullString) *time.Time {
	if !s.Valid {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s.String)
	if err != nil {
		return nil
	}
	return &t
}

var errClosed = errors.New("jobs: runner is closed")
