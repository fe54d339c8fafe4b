package api

import (
	"context"
	"slices"

	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

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
	// The request's deadline has passed: the job is recorded regardless.
	ctx := context.WithoutCancel(c.Request().Context())
	job, err := s.opts.Jobs.Submit(ctx, follow)
	if err != nil {
		s.log.WarnContext(ctx, "could not queue the deferred extraction; episodes kept without facts", "namespace", req.Namespace, "error", err)
		res.Warnings = append(res.Warnings, "the deferred extraction could not be queued: the messages keep no facts: "+err.Error())
		return
	}
	res.JobID = job.ID
	res.Warnings = append(res.Warnings, "extraction continues in the background as job "+job.ID+" ("+jobURL(job.Namespace, job.ID)+")")
}
