package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/auth"
	"github.com/labstack/echo/v4"
)

// nsSource says where a route's namespace comes from.
type nsSource int

const (
	// nsNone: the route touches no namespace (metrics, health).
	nsNone nsSource = iota
	// nsQuery: the ?namespace= query parameter.
	nsQuery
	// nsPath: the :namespace path segment.
	nsPath
	// nsBody: the "namespace" member of the JSON body.
	nsBody
	// nsBodyPrefix: the "namespace_prefix" member of the JSON body; the
	// key must cover the whole prefix, so a key scoped to "memories/alice"
	// cannot search "memories".
	nsBodyPrefix
	// nsKeyScope: the route lists namespaces and its handler keeps only
	// those the key covers (GET /v1/namespaces).
	nsKeyScope
	// nsBodyOps: the "ops" of the JSON body (POST /v1/items/batch), each
	// checked on its own: a put or delete needs write access to its
	// "namespace", a get read access, a search read access to the whole
	// of its "namespace_prefix"; one refused operation refuses the batch.
	nsBodyOps
	// nsCalls: the route's handler touches namespaces only through REST
	// calls made with the request's key, each checked as its own route
	// (POST /mcp, whose tools call the API through Server.InProcess).
	nsCalls
)

// access is a route's authorisation policy (a column of the route table,
// api/routes.go). The middleware reads the namespace from where the route's
// handler reads it (with the same helpers) and checks it before the handler
// runs, so a handler cannot forget.
type access struct {
	// public routes need no key at all.
	public bool
	right  auth.Right
	ns     nsSource
}

// principalKey is the echo context key of the request's auth.Principal.
const principalKey = "kgmem.principal"

// principal returns the request's principal; ok is false on an open server.
func principal(c echo.Context) (auth.Principal, bool) {
	p, ok := c.Get(principalKey).(auth.Principal)
	return p, ok
}

// bearer extracts the key from "Authorization: Bearer <key>".
func bearer(c echo.Context) string {
	h := c.Request().Header.Get(echo.HeaderAuthorization)
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// unauthorized is a 401 with the challenge RFC 9110 requires. On /mcp the
// challenge also says what to send: MCP clients read a bare Bearer
// challenge as the start of an OAuth login, which kgmem does not offer.
func unauthorized(c echo.Context, detail string) error {
	challenge := `Bearer realm="kgmem"`
	if c.Path() == "/mcp" {
		challenge += `, error_description="kgmem takes an API key, not OAuth: send Authorization: Bearer <API key>"`
	}
	c.Response().Header().Set(echo.HeaderWWWAuthenticate, challenge)
	return echo.NewHTTPError(http.StatusUnauthorized, detail)
}

// forbidden is a 403 naming the namespace field.
func forbidden(p auth.Principal, ns kgmem.Namespace, right auth.Right) error {
	if ns == "" {
		return echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf("API key %s has no %s access to this route", p.KeyID, right))
	}
	detail := fmt.Sprintf("API key %s has no %s access to namespace %q", p.KeyID, right, ns)
	return &echo.HTTPError{Code: http.StatusForbidden, Message: detail, Internal: &kgmem.FieldError{Field: "namespace", Reason: detail}}
}

// authenticate resolves the bearer key of every non-public route into a
// principal. With authentication off (no admin key, no stored key: a
// loopback-only server) every request passes.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		route := c.Request().Method + " " + c.Path()
		pol, known := s.policyOf(route)
		if s.opts.Auth == nil || pol.public || !known && s.pathSet[c.Path()] {
			// Open, public, or a method the path does not have: its 405 touches
			// nothing and the paths are public (openapi.json). An unknown path
			// still needs a key, so its 404 tells nothing to a stranger.
			return next(c)
		}
		ctx := c.Request().Context()
		on, err := s.opts.Auth.Enabled(ctx)
		if err != nil {
			return err
		}
		if !on {
			return next(c)
		}
		p, err := s.opts.Auth.Authenticate(ctx, bearer(c))
		switch {
		case errors.Is(err, auth.ErrUnauthenticated):
			if c.Request().Header.Get(echo.HeaderAuthorization) == "" {
				return unauthorized(c, "this route needs an API key: send Authorization: Bearer kgm_…")
			}
			return unauthorized(c, "the API key is malformed, unknown or revoked")
		case err != nil:
			return err
		}
		c.Set(principalKey, p)
		return next(c)
	}
}

// authorize checks the principal's right over the route's namespace before
// the handler runs.
func (s *Server) authorize(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p, ok := principal(c)
		if !ok {
			return next(c) // open server, or a public route
		}
		route := c.Request().Method + " " + c.Path()
		pol, known := s.policyOf(route)
		if !known {
			return next(c) // 404 or 405: touches nothing
		}
		var ns kgmem.Namespace
		var err error
		switch pol.ns {
		case nsQuery:
			if len(c.QueryParams()["namespace"]) > 1 {
				return kgmem.Invalidf("namespace", "is given more than once")
			}
			ns, err = namespaceParam(c)
		case nsPath:
			ns, err = namespacePathParam(c)
		case nsBody:
			ns, err = bodyNamespace(c, "namespace")
		case nsBodyPrefix:
			ns, err = bodyNamespace(c, "namespace_prefix")
		case nsBodyOps:
			return authorizeOps(c, p, next)
		}
		if err != nil {
			return err
		}
		if pol.ns == nsNone || pol.ns == nsKeyScope || pol.ns == nsCalls {
			if !p.Right.Includes(pol.right) {
				return forbidden(p, "", pol.right)
			}
			return next(c)
		}
		if !p.Allows(ns, pol.right) {
			return forbidden(p, ns, pol.right)
		}
		return next(c)
	}
}

// bodyNamespace reads the body's namespace member (named member) with the
// same decoder the handler uses, then puts the body back for the handler.
func bodyNamespace(c echo.Context, member string) (kgmem.Namespace, error) {
	req := c.Request()
	raw, err := io.ReadAll(req.Body)
	if err != nil {
		return "", decodeError(err)
	}
	req.Body = io.NopCloser(bytes.NewReader(raw))
	// Decoded as the handler decodes it: names matched exactly, a repeated
	// member, invalid UTF-8 or a lone surrogate refused (unmarshalStrict);
	// other members are the handler's to check.
	var body struct {
		Namespace       string `json:"namespace"`
		NamespacePrefix string `json:"namespace_prefix"`
	}
	if err := decodeError(json.Unmarshal(raw, &body)); err != nil {
		return "", err
	}
	if member == "namespace_prefix" {
		return kgmem.ParseNamespaceField(member, body.NamespacePrefix)
	}
	return kgmem.ParseNamespace(body.Namespace)
}

// authorizeOps checks each operation of a batch body against the
// principal (nsBodyOps), decoding the body as the handler does and putting
// it back for it. An operation of unknown kind is left to the handler,
// which refuses it before anything runs.
func authorizeOps(c echo.Context, p auth.Principal, next echo.HandlerFunc) error {
	req := c.Request()
	raw, err := io.ReadAll(req.Body)
	if err != nil {
		return decodeError(err)
	}
	req.Body = io.NopCloser(bytes.NewReader(raw))
	var body struct {
		Ops []struct {
			Op              string `json:"op"`
			Namespace       string `json:"namespace"`
			NamespacePrefix string `json:"namespace_prefix"`
		} `json:"ops"`
	}
	if err := decodeError(json.Unmarshal(raw, &body)); err != nil {
		return err
	}
	for i, op := range body.Ops {
		var ns kgmem.Namespace
		right := auth.Read
		switch op.Op {
		case "put", "delete":
			right = auth.Write
			fallthrough
		case "get":
			ns, err = kgmem.ParseNamespace(op.Namespace)
		case "search":
			ns, err = kgmem.ParseNamespaceField("namespace_prefix", op.NamespacePrefix)
		default:
			continue
		}
		if err != nil {
			return fieldIn(fmt.Sprintf("ops[%d]", i), err)
		}
		if !p.Allows(ns, right) {
			detail := fmt.Sprintf("API key %s has no %s access to namespace %q (ops[%d])", p.KeyID, right, ns, i)
			return &echo.HTTPError{Code: http.StatusForbidden, Message: detail, Internal: &kgmem.FieldError{Field: fmt.Sprintf("ops[%d].namespace", i), Reason: detail}}
		}
	}
	return next(c)
}

// isRoute reports whether "METHOD path" is a registered route.
func (s *Server) isRoute(route string) bool {
	_, ok := s.policyOf(route)
	return ok
}
