package api

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

//go:generate go run ./internal/openapigen openapi.json

// openAPIDocument is the OpenAPI 3 description of every route, generated
// from the route table and the wire types (OpenAPIDocument; go generate).
//
//go:embed openapi.json
var openAPIDocument []byte

func (s *Server) openAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDocument)
}
