package api

import (
	"net/http"
	"net/url"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

// submitJob accepts an ingest as a background job: 202, the job, and its
// URL in Location.
func (s *Server) submitJob(c echo.Context, req memory.IngestRequest) error {
	if s.opts.Jobs == nil {
		return kgmem.Invalidf("mode", "async is not enabled on this server")
	}
	job, err := s.opts.Jobs.Submit(c.Request().Context(), req)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, jobURL(job.Namespace, job.ID))
	return c.JSON(http.StatusAccepted, wireJob(job))
}

// jobURL is where a job's status is read.
func jobURL(ns kgmem.Namespace, id string) string {
	return "/v1/jobs/" + id + "?namespace=" + url.QueryEscape(string(ns))
}

// getJob reports a background job of the namespace given in ?namespace=
// (authorised by the middleware, like every query-namespace route); a job of
// any other namespace is a 404, as if it did not exist.
func (s *Server) getJob(c echo.Context) error {
	ns, err := namespaceParam(c)
	if err != nil {
		return err
	}
	if s.opts.Jobs == nil {
		return echo.NewHTTPError(http.StatusNotFound, "background jobs are not enabled on this server")
	}
	job, err := s.opts.Jobs.Get(c.Request().Context(), ns, c.Param("id"))
	if err != nil {
		return notFound(err, "job", c.Param("id"), ns)
	}
	return c.JSON(http.StatusOK, wireJob(job))
}
