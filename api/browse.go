package api

import (
	"net/http"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

// listNamespaces lists the namespaces that exist and that the request's key
// may read; the key's own prefixes come along so a client can offer them.
func (s *Server) listNamespaces(c echo.Context) error {
	all, err := s.engine.Namespaces(c.Request().Context())
	if err != nil {
		return err
	}
	p, keyed := principal(c)
	out := wire.NamespaceList{Namespaces: make([]kgmem.Namespace, 0, len(all))}
	for _, ns := range all {
		if !keyed || p.Allows(ns, auth.Read) {
			out.Namespaces = append(out.Namespaces, ns)
		}
	}
	if keyed && !p.IsAdmin() {
		out.Prefixes = p.Prefixes
	}
	return c.JSON(http.StatusOK, out)
}

// listEpisodes lists messages of a namespace: those named by ?id= (repeated,
// in that order, unknown ids left out), or else a page of all in id order.
func (s *Server) listEpisodes(c echo.Context) error {
	ns, err := namespaceParam(c)
	if err != nil {
		return err
	}
	page, err := s.pageParams(c)
	if err != nil {
		return err
	}
	ids, err := s.idsParam(c, page)
	if err != nil {
		return err
	}
	eps, err := s.engine.ListEpisodes(c.Request().Context(), memory.ListEpisodesRequest{Namespace: ns, IDs: ids, Page: page})
	if err != nil {
		return err
	}
	out := wire.EpisodeList{Episodes: eps}
	if len(ids) == 0 && len(eps) == page.Limit {
		out.Next = eps[len(eps)-1].ID
	}
	return c.JSON(http.StatusOK, out)
}

// idsParam reads the repeated ?id= of a list route that can also fetch
// records by id: at most a page of them, none empty. The route's other
// filters (after, limit, q, type) then apply to the named records.
func (s *Server) idsParam(c echo.Context, page kgmem.Page) ([]string, error) {
	ids := c.QueryParams()["id"]
	if len(ids) > s.opts.MaxPageSize {
		return nil, kgmem.Invalidf("id", "names %d records, at most %d allowed", len(ids), s.opts.MaxPageSize)
	}
	for _, id := range ids {
		if id == "" {
			return nil, kgmem.Invalidf("id", "is empty")
		}
	}
	return ids, nil
}

// maxJobList bounds ?limit= of GET /v1/jobs.
const maxJobList = 100

// listJobs lists the latest background jobs of a namespace, newest first.
func (s *Server) listJobs(c echo.Context) error {
	ns, err := namespaceParam(c)
	if err != nil {
		return err
	}
	limit, ok, err := intParam(c, "limit", 1, maxJobList)
	if err != nil {
		return err
	}
	if !ok {
		limit = 20
	}
	if s.opts.Jobs == nil {
		return c.JSON(http.StatusOK, wire.JobList{Jobs: []wire.Job{}})
	}
	list, err := s.opts.Jobs.List(c.Request().Context(), ns, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wire.JobList{Jobs: convertAll(list, wireJob)})
}

// postStrength reports how strongly records are held now and their
// forgetting curves; it reads only (no reinforcement).
func (s *Server) postStrength(c echo.Context) error {
	ns, body, err := s.decodeRefs(c)
	if err != nil {
		return err
	}
	if body.Pinned != nil {
		return kgmem.Invalidf("pinned", "is not a known field of strength; use /v1/pins")
	}
	recs, err := s.engine.Strengths(c.Request().Context(), ns, engineRefs(body.Refs))
	if err != nil {
		return recordsNotFound(err, ns)
	}
	return c.JSON(http.StatusOK, wire.StrengthList{Records: convertAll(recs, wireStrength)})
}
