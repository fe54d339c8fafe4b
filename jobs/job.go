package jobs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/memory"
)

// Status is a job's state.
type Status = kgmem.JobStatus

// Job states, in order.
const (
	StatusQueued    = kgmem.JobQueued
	StatusRunning   = kgmem.JobRunning
	StatusSucceeded = kgmem.JobSucceeded
	StatusFailed    = kgmem.JobFailed
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
	attempts int // engine calls that met an unavailable backend
}

// Progress counts a job's messages.
type Progress struct {
	Messages int `json:"messages"`
	// Stored is how many are stored (new or known before); set when it succeeds.
	Stored int `json:"stored"`
}

// requestJSON is the stored form of an ingest request.
type requestJSON struct {
	Namespace kgmem.Namespace `json:"namespace"`
	ThreadID  string          `json:"thread_id"`
	Messages  json.RawMessage `json:"messages"`
	Extract   bool            `json:"extract"`
	// ExtractKnown marks the follow-up of an extraction deferred past its
	// request's deadline (memory.IngestRequest.ExtractKnown).
	ExtractKnown bool          `json:"extract_known,omitempty"`
	Schema       *kgmem.Schema `json:"schema,omitempty"`
}

// record is j as JobRecords keep it.
func (j *Job) record() (kgmem.JobRecord, error) {
	msgs, err := json.Marshal(j.request.Messages)
	if err != nil {
		return kgmem.JobRecord{}, fmt.Errorf("encode job messages: %w", err)
	}
	req, err := json.Marshal(requestJSON{Namespace: j.Namespace, ThreadID: j.ThreadID, Messages: msgs, Extract: j.request.Extract, ExtractKnown: j.request.ExtractKnown, Schema: j.request.Schema})
	if err != nil {
		return kgmem.JobRecord{}, fmt.Errorf("encode job: %w", err)
	}
	var result []byte
	if j.Result != nil {
		if result, err = json.Marshal(j.Result); err != nil {
			return kgmem.JobRecord{}, fmt.Errorf("encode job result: %w", err)
		}
	}
	return kgmem.JobRecord{ID: j.ID, Namespace: j.Namespace, ThreadID: j.ThreadID, Status: j.Status, Request: req, Result: result,
		Error: j.Error, CoalescedWith: j.CoalescedWith, CreatedAt: j.CreatedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt}, nil
}

// jobOf decodes a stored job.
func jobOf(r kgmem.JobRecord) (Job, error) {
	j := Job{ID: r.ID, Namespace: r.Namespace, ThreadID: r.ThreadID, Status: r.Status, Error: r.Error,
		CoalescedWith: r.CoalescedWith, CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt}
	var rj requestJSON
	if err := json.Unmarshal(r.Request, &rj); err != nil {
		return Job{}, fmt.Errorf("job %s: stored request is corrupt: %w", r.ID, err)
	}
	j.request = memory.IngestRequest{Namespace: rj.Namespace, ThreadID: rj.ThreadID, Extract: rj.Extract, ExtractKnown: rj.ExtractKnown, Schema: rj.Schema}
	if err := json.Unmarshal(rj.Messages, &j.request.Messages); err != nil {
		return Job{}, fmt.Errorf("job %s: stored messages are corrupt: %w", r.ID, err)
	}
	j.Progress.Messages = len(j.request.Messages)
	if len(r.Result) > 0 {
		j.Result = &memory.IngestResult{}
		if err := json.Unmarshal(r.Result, j.Result); err != nil {
			return Job{}, fmt.Errorf("job %s: stored result is corrupt: %w", r.ID, err)
		}
		j.Progress.Stored = len(j.Result.Episodes)
	}
	return j, nil
}

// jobsOf decodes stored jobs.
func jobsOf(recs []kgmem.JobRecord) ([]Job, error) {
	out := make([]Job, 0, len(recs))
	for _, r := range recs {
		j, err := jobOf(r)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}
