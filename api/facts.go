package api

import (
	"fmt"
	"net/http"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

func (s *Server) postFacts(c echo.Context) error {
	var body wire.FactsRequest
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	ns, err := kgmem.ParseNamespace(string(body.Namespace))
	if err != nil {
		return err
	}
	req := memory.AddFactsRequest{Namespace: ns}
	for i, t := range body.Facts {
		validAt, err := parseTime(fmt.Sprintf("facts[%d].valid_at", i), t.ValidAt)
		if err != nil {
			return err
		}
		invalidAt, err := parseTime(fmt.Sprintf("facts[%d].invalid_at", i), t.InvalidAt)
		if err != nil {
			return err
		}
		req.Facts = append(req.Facts, kgmem.Triple{
			Subject: t.Subject, SubjectType: t.SubjectType, Predicate: t.Predicate, Object: t.Object, ObjectType: t.ObjectType,
			Text: t.Fact, ValidAt: validAt, InvalidAt: invalidAt, Confidence: t.Confidence, Importance: t.Importance,
			Attributes: t.Metadata, EpisodeIDs: t.EpisodeIDs,
		})
	}
	res, err := s.engine.AddFacts(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(factsStatus(res.Facts), wireAddFactsResult(res))
}

// factsStatus is the status of POST /v1/facts: 201 when the request created
// a fact record, 200 when every fact was already known (duplicates,
// restatements that updated a known fact, skipped ones).
func factsStatus(changes []kgmem.FactChange) int {
	for _, c := range changes {
		if c.Op == kgmem.OpAdded {
			return http.StatusCreated
		}
	}
	return http.StatusOK
}

func (s *Server) getFact(c echo.Context) error {
	ns, err := namespaceParam(c)
	if err != nil {
		return err
	}
	f, err := s.engine.Fact(c.Request().Context(), ns, c.Param("id"))
	if err != nil {
		return notFound(err, "fact", c.Param("id"), ns)
	}
	return c.JSON(http.StatusOK, wireFactView(f))
}

func (s *Server) listFacts(c echo.Context) error {
	ns, err := namespaceParam(c)
	if err != nil {
		return err
	}
	page, err := s.pageParams(c)
	if err != nil {
		return err
	}
	current, err := boolParam(c, "current_only")
	if err != nil {
		return err
	}
	rawAsOf, err := queryParam(c, "as_of")
	if err != nil {
		return err
	}
	asOf, err := parseTime("as_of", rawAsOf)
	if err != nil {
		return err
	}
	entity, err := queryParam(c, "entity")
	if err != nil {
		return err
	}
	facts, err := s.engine.ListFacts(c.Request().Context(), memory.ListFactsRequest{Namespace: ns, Entity: entity,
		CurrentOnly: current, AsOf: asOf, Page: page})
	if err != nil {
		return err
	}
	out := wire.FactList{Facts: convertAll(facts, wireFactView)}
	if len(facts) == page.Limit {
		out.Next = facts[len(facts)-1].ID
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) deleteFact(c echo.Context) error {
	ns, err := namespaceParam(c)
	if err != nil {
		return err
	}
	if err := s.engine.DeleteFact(c.Request().Context(), ns, c.Param("id")); err != nil {
		return notFound(err, "fact", c.Param("id"), ns)
	}
	return c.NoContent(http.StatusNoContent)
}
