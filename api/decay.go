package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

func (s *Server) decodeRefs(c echo.Context) (kgmem.Namespace, wire.RefsRequest, error) {
	var body wire.RefsRequest
	if err := decodeJSON(c, &body); err != nil {
		return "", body, err
	}
	ns, err := kgmem.ParseNamespace(string(body.Namespace))
	return ns, body, err
}

// postFeedback reinforces records the client confirms it used.
func (s *Server) postFeedback(c echo.Context) error {
	ns, body, err := s.decodeRefs(c)
	if err != nil {
		return err
	}
	if body.Pinned != nil {
		return kgmem.Invalidf("pinned", "is not a known field of feedback; use /v1/pins")
	}
	if err := s.engine.Feedback(c.Request().Context(), memory.FeedbackRequest{Namespace: ns, Refs: engineRefs(body.Refs)}); err != nil {
		return recordsNotFound(err, ns)
	}
	return c.JSON(http.StatusAccepted, wire.FeedbackResult{Reinforced: len(body.Refs)})
}

// postPins pins or unpins records: pinned records never decay.
func (s *Server) postPins(c echo.Context) error {
	ns, body, err := s.decodeRefs(c)
	if err != nil {
		return err
	}
	pinned := body.Pinned == nil || *body.Pinned
	if err := s.engine.SetPinned(c.Request().Context(), memory.PinRequest{Namespace: ns, Refs: engineRefs(body.Refs), Pinned: pinned}); err != nil {
		return recordsNotFound(err, ns)
	}
	return c.JSON(http.StatusOK, wire.PinResult{Pinned: pinned, Records: len(body.Refs)})
}

// postRestore brings soft-forgotten records back into default search.
func (s *Server) postRestore(c echo.Context) error {
	ns, body, err := s.decodeRefs(c)
	if err != nil {
		return err
	}
	if body.Pinned != nil {
		return kgmem.Invalidf("pinned", "is not a known field of restore; use /v1/pins")
	}
	if err := s.engine.Restore(c.Request().Context(), ns, engineRefs(body.Refs)); err != nil {
		return recordsNotFound(err, ns)
	}
	return c.JSON(http.StatusOK, wire.RestoreResult{Restored: len(body.Refs)})
}

// postSweep soft-forgets the faded records of one namespace now.
func (s *Server) postSweep(c echo.Context) error {
	ns, err := namespacePathParam(c)
	if err != nil {
		return err
	}
	stats, err := s.engine.Sweep(c.Request().Context(), ns)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wireSweepStats(stats))
}

func (s *Server) getSettings(c echo.Context) error {
	ns, err := namespacePathParam(c)
	if err != nil {
		return err
	}
	st, params, err := s.engine.Settings(c.Request().Context(), ns)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wire.Settings{Schema: st.Schema, Writes: st.Writes, Decay: raw, Cardinality: st.Cardinality, SearchRecipe: st.SearchRecipe})
}

func (s *Server) putSettings(c echo.Context) error {
	ns, err := namespacePathParam(c)
	if err != nil {
		return err
	}
	var body wire.Settings
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if err := strictDecay(body.Decay); err != nil {
		return err
	}
	if err := s.engine.PutSettings(c.Request().Context(), ns, kgmem.NamespaceSettings{Schema: body.Schema, Writes: body.Writes, Decay: body.Decay, Cardinality: body.Cardinality, SearchRecipe: body.SearchRecipe}); err != nil {
		return err
	}
	return s.getSettings(c)
}

// strictDecay holds the decay parameters of a settings body to the rule of
// every body (decodeJSON): their names match exactly, so "Floor" is an
// unknown field rather than floor. The engine checks the values.
func strictDecay(raw []byte) error {
	if t := strings.TrimSpace(string(raw)); t == "" || t == "null" {
		return nil
	}
	var p decay.Params
	err := decodeError(jsonv2.Unmarshal(raw, &p, jsonv2.RejectUnknownMembers(true)))
	var fe *kgmem.FieldError
	if errors.As(err, &fe) && fe.Field != "body" {
		return &kgmem.FieldError{Field: "decay." + fe.Field, Reason: fe.Reason, Kind: fe.Kind}
	}
	if err != nil {
		return kgmem.Invalidf("decay", "%v", err)
	}
	return nil
}
