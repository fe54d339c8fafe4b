package jobs

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/sqlitefile"
)

// sqliteRecords keeps jobs in a SQLite file of one server's data directory
// (kgmem.JobRecords). Leases are timed by this process's clock.
type sqliteRecords struct {
	db  *sql.DB
	now func() time.Time
}

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

// leaseColumns are added to job files written before leases existed; their
// jobs have no owner and an expired lease, so the next Claim takes them.
var leaseColumns = []string{
	`ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE jobs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0`,
}

// OpenFile opens (or creates) the job records in the SQLite file at path.
func OpenFile(ctx context.Context, path string) (kgmem.JobRecords, error) {
	db, err := sqlitefile.Open(ctx, path, schema)
	if err != nil {
		return nil, fmt.Errorf("open job store: %w", err)
	}
	db.SetMaxOpenConns(1) // one writer; reads are short
	for _, stmt := range leaseColumns {
		if _, err := db.ExecContext(ctx, stmt); err != nil && !strings.Contains(err.Error(), "duplicate column") {
			db.Close()
			return nil, fmt.Errorf("upgrade job store %s: %w", path, err)
		}
	}
	return &sqliteRecords{db: db, now: time.Now}, nil
}

func (s *sqliteRecords) Close() error { return s.db.Close() }

func (s *sqliteRecords) leaseEnd(lease time.Duration) int64 { return s.now().Add(lease).UnixMilli() }

func (s *sqliteRecords) Insert(ctx context.Context, r *kgmem.JobRecord, owner string, lease time.Duration) error {
	co, _ := json.Marshal(orEmpty(r.CoalescedWith))
	res, err := s.db.ExecContext(ctx, `INSERT INTO jobs(id, namespace, thread_id, status, request, result, error, coalesced, created_at, owner, lease_until)
		VALUES(?,?,?,?,?,?,?,?,?,?,?)`,
		r.ID, string(r.Namespace), r.ThreadID, string(r.Status), r.Request, r.Result, r.Error, string(co),
		r.CreatedAt.UTC().Format(time.RFC3339Nano), owner, s.leaseEnd(lease))
	if err != nil {
		return fmt.Errorf("store job: %w", err)
	}
	r.Seq, _ = res.LastInsertId()
	return nil
}

func (s *sqliteRecords) Claim(ctx context.Context, owner string, lease time.Duration, own bool, limit int) ([]kgmem.JobRecord, error) {
	// One statement: SQLite takes the write lock before it reads, so two
	// handles never claim the same job. "LIMIT +?", not "LIMIT ?": SQLite
	// re-plans a statement whose bare LIMIT parameter is bound anew.
	rows, err := s.db.QueryContext(ctx, `UPDATE jobs SET owner=?, lease_until=? WHERE seq IN (
			SELECT seq FROM jobs WHERE status IN (?, ?) AND (lease_until <= ? OR (? AND owner = ?)) ORDER BY seq LIMIT +?)
		RETURNING `+jobColumns,
		owner, s.leaseEnd(lease), string(kgmem.JobQueued), string(kgmem.JobRunning), s.now().UnixMilli(), own, owner, max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	recs, err := scanJobs(rows)
	if err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	slices.SortFunc(recs, func(a, b kgmem.JobRecord) int { return cmp.Compare(a.Seq, b.Seq) })
	return recs, nil
}

func (s *sqliteRecords) Renew(ctx context.Context, owner string, lease time.Duration) (int, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE jobs SET lease_until=? WHERE owner=? AND status IN (?, ?)`,
		s.leaseEnd(lease), owner, string(kgmem.JobQueued), string(kgmem.JobRunning))
	if err != nil {
		return 0, fmt.Errorf("renew job leases: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

func (s *sqliteRecords) MarkRunning(ctx context.Context, ids []string, at time.Time) error {
	for _, id := range ids {
		if _, err := s.db.ExecContext(ctx, `UPDATE jobs SET status=?, started_at=? WHERE id=? AND status IN (?, ?)`,
			string(kgmem.JobRunning), at.UTC().Format(time.RFC3339Nano), id, string(kgmem.JobQueued), string(kgmem.JobRunning)); err != nil {
			return fmt.Errorf("mark job %s running: %w", id, err)
		}
	}
	return nil
}

func (s *sqliteRecords) MarkQueued(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if _, err := s.db.ExecContext(ctx, `UPDATE jobs SET status=?, started_at=NULL WHERE id=? AND status=?`,
			string(kgmem.JobQueued), id, string(kgmem.JobRunning)); err != nil {
			return fmt.Errorf("requeue job %s: %w", id, err)
		}
	}
	return nil
}

func (s *sqliteRecords) Finish(ctx context.Context, r kgmem.JobRecord) error {
	co, _ := json.Marshal(orEmpty(r.CoalescedWith))
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET status=?, result=?, error=?, coalesced=?, started_at=?, finished_at=?, lease_until=0 WHERE id=?`,
		string(r.Status), r.Result, r.Error, string(co), optTime(r.StartedAt), optTime(r.FinishedAt), r.ID)
	if err != nil {
		return fmt.Errorf("record job %s outcome: %w", r.ID, err)
	}
	return nil
}

const (
	jobColumns = `seq, id, namespace, thread_id, status, request, result, error, coalesced, created_at, started_at, finished_at`
	selectJob  = `SELECT ` + jobColumns + ` FROM jobs`
)

func (s *sqliteRecords) Get(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.JobRecord, error) {
	rows, err := s.db.QueryContext(ctx, selectJob+` WHERE id=? AND namespace=?`, id, string(ns))
	if err != nil {
		return kgmem.JobRecord{}, fmt.Errorf("read job: %w", err)
	}
	recs, err := scanJobs(rows)
	if err != nil {
		return kgmem.JobRecord{}, err
	}
	if len(recs) == 0 {
		return kgmem.JobRecord{}, fmt.Errorf("job %q in namespace %q: %w", id, ns, kgmem.ErrNotFound)
	}
	return recs[0], nil
}

func (s *sqliteRecords) Recent(ctx context.Context, ns kgmem.Namespace, limit int) ([]kgmem.JobRecord, error) {
	rows, err := s.db.QueryContext(ctx, selectJob+` WHERE namespace=? ORDER BY seq DESC LIMIT +?`, string(ns), max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("list jobs of %q: %w", ns, err)
	}
	return scanJobs(rows)
}

func scanJobs(rows *sql.Rows) ([]kgmem.JobRecord, error) {
	defer rows.Close()
	var out []kgmem.JobRecord
	for rows.Next() {
		var r kgmem.JobRecord
		var ns, status, created, co string
		var started, finished sql.NullString
		if err := rows.Scan(&r.Seq, &r.ID, &ns, &r.ThreadID, &status, &r.Request, &r.Result, &r.Error, &co, &created, &started, &finished); err != nil {
			return nil, fmt.Errorf("read job: %w", err)
		}
		r.Namespace, r.Status = kgmem.Namespace(ns), kgmem.JobStatus(status)
		_ = json.Unmarshal([]byte(co), &r.CoalescedWith)
		if len(r.CoalescedWith) == 0 {
			r.CoalescedWith = nil
		}
		r.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		r.StartedAt, r.FinishedAt = parseOptTime(started), parseOptTime(finished)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read jobs: %w", err)
	}
	return out, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func optTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC().Format(time.RFC3339Nano)
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
