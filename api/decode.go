package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/labstack/echo/v4"
)

// decodeJSON reads exactly one JSON object from the request body into dst,
// rejecting unknown fields, trailing data, wrong types and an oversize body with
// errors that say where the problem is.
func decodeJSON(c echo.Context, dst any) error {
	if ct := c.Request().Header.Get(echo.HeaderContentType); ct != "" {
		// The media type itself, parameters (charset) aside: a prefix test
		// would take application/jsonp or application/json-seq for JSON.
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != echo.MIMEApplicationJSON {
			return echo.NewHTTPError(http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type is %q; send application/json", ct))
		}
	}
	raw, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return decodeError(err)
	}
	// Every body is a JSON object: null, a list or a bare value would
	// decode into zero values and pass for an empty request.
	if trimmed := bytes.TrimLeft(raw, " \t\r\n"); len(trimmed) > 0 && trimmed[0] != '{' {
		return kgmem.Invalidf("body", "must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return kgmem.Invalidf("body", "holds data after the JSON object; send exactly one object")
	}
	return nil
}

func decodeError(err error) error {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds %d bytes", maxErr.Limit))
	case errors.Is(err, io.EOF):
		return kgmem.Invalidf("body", "is empty; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return kgmem.Invalidf("body", "is truncated JSON")
	case errors.As(err, &syntaxErr):
		return kgmem.Invalidf("body", "is malformed JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "body"
		}
		return kgmem.Invalidf(field, "must be %s, got JSON %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		if name == "" {
			return kgmem.Invalidf("body", "has a member with an empty name, which is not a known field")
		}
		return kgmem.Invalidf(name, "is not a known field")
	}
	return kgmem.Invalidf("body", "cannot be decoded: %v", err)
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "bool":
		return "a boolean"
	}
	return "a number"
}
