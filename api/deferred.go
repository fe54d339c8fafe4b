package api

import (
	"context"
	"slices"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

// deferTimeout bounds recording a deferred extraction's job after the
// request's deadline (the server's write timeout allows 10 s more).
const deferTimeout = 5 * time.Second

// deferExtraction hands the extraction a synchronous ingest could not finish
// within its deadline to a background job: the messages are stored and
// searchable already, the job extracts their facts. res gets the job's id
// and a warning naming it. Without a job runner, the warning says the
// episodes are kept without facts.
func (s *Server) deferExtraction(c echo.Context, req memory.IngestRequest, res *memory.IngestResult) {
	if s.opts.Jobs == nil {
		res.Warnings = append(res.Warnings, "background jobs are not enabled on this server: the deferred messages keep no facts")
		return
	}
	follow := memory.IngestRequest{Namespace: req.Namespace, ThreadID: req.ThreadID, Extract: true, ExtractKnown: true, Schema: req.Schema}
	for i, ep := range res.Episodes {
		if slices.Contains(res.Deferred, ep.ID) {
			m := req.Messages[i]
			m.ID, m.Timestamp = ep.MessageID, ep.Timestamp
			follow.Messages = append(follow.Messages, m)
		}
	}
	// The request's deadline may have passed: the job is recorded
	// regardless, within the connection's write allowance.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), deferTimeout)
	defer cancel()
	job, err := s.opts.Jobs.Submit(ctx, follow)
	if err != nil {
		s.log.WarnContext(ctx, "could not queue the deferred extraction; episodes kept without facts", "namespace", req.Namespace, "error", err)
		res.Warnings = append(res.Warnings, "the deferred extraction could not be queued: the messages keep no facts: "+err.Error())
		return
	}
	res.JobID = job.ID
	res.Warnings = append(res.Warnings, "extraction continues in the background as job "+job.ID+" ("+jobURL(job.Namespace, job.ID)+")")
}

// submitExtraction answers an async post with extraction: the messages are
// stored first, so they are searchable at once, then a background job
// extracts the facts of those this post created (202 and the job, as
// submitJob). When every message was known, the job has nothing to extract.
func (s *Server) submitExtraction(c echo.Context, req memory.IngestRequest) error {
	switch {
	case s.opts.Jobs == nil:
		return kgmem.Invalidf("mode", "async is not enabled on this server")
	case !s.engine.ExtractionEnabled():
		return memory.ErrExtractionDisabled
	}
	store := req
	store.Extract = false
	res, err := s.engine.Ingest(c.Request().Context(), store)
	if err != nil {
		return err
	}
	follow := req
	follow.ExtractKnown, follow.Messages = true, nil
	for i, ep := range res.Episodes {
		if ep.Created {
			m := req.Messages[i]
			m.ID, m.Timestamp = ep.MessageID, ep.Timestamp
			follow.Messages = append(follow.Messages, m)
		}
	}
	if len(follow.Messages) == 0 {
		follow = req // all known: the job finds them stored and extracts nothing
	}
	return s.submitJob(c, follow)
}
