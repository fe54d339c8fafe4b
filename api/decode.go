package api

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/kgmem/kgmem"
	"github.com/labstack/echo/v4"
)

// decodeJSON reads exactly one JSON object from the request body into dst,
// strictly: member names match the fields exactly (a name that differs only in
// case is an unknown field), a name given twice, invalid UTF-8, a lone UTF-16
// surrogate escape ("\ud800"), unknown fields, trailing data, wrong types and
// an oversize body are each refused with an error that says where the
// problem is. The content type was checked by requireJSONBody.
func decodeJSON(c echo.Context, dst any) error {
	raw, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return decodeError(err)
	}
	return unmarshalStrict(raw, dst)
}

// unmarshalStrict decodes raw, one JSON object, into dst with decodeJSON's rules.
func unmarshalStrict(raw []byte, dst any) error {
	// Every body is a JSON object: null, a list or a bare value would
	// decode into zero values and pass for an empty request.
	trimmed := strings.TrimLeft(string(raw[:min(len(raw), 64)]), " \t\r\n")
	switch {
	case len(strings.TrimSpace(string(raw))) == 0:
		return kgmem.Invalidf("body", "is empty; send a JSON object")
	case trimmed != "" && trimmed[0] != '{':
		return kgmem.Invalidf("body", "must be a JSON object")
	}
	return decodeError(json.Unmarshal(raw, dst, json.RejectUnknownMembers(true)))
}

// decodeError turns a decoding error into a *kgmem.FieldError (400) naming
// the member, or a 413 for an oversize body; nil stays nil.
func decodeError(err error) error {
	if err == nil {
		return nil
	}
	var maxErr *http.MaxBytesError
	var synErr *jsontext.SyntacticError
	var semErr *json.SemanticError
	switch {
	case errors.As(err, &maxErr):
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds %d bytes", maxErr.Limit))
	case errors.Is(err, io.EOF):
		return kgmem.Invalidf("body", "is empty; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return kgmem.Invalidf("body", "is truncated JSON")
	case errors.As(err, &synErr):
		return syntaxError(synErr)
	case errors.As(err, &semErr):
		return semanticError(semErr)
	}
	return kgmem.Invalidf("body", "cannot be decoded: %v", err)
}

// syntaxError names what is wrong with malformed JSON and where.
func syntaxError(e *jsontext.SyntacticError) error {
	field := fieldPath(e.JSONPointer)
	switch {
	case errors.Is(e.Err, jsontext.ErrDuplicateName):
		// The pointer names the duplicate member itself.
		return kgmem.Invalidf(field, "is given more than once; give each member once")
	case strings.Contains(e.Err.Error(), "invalid UTF-8"):
		return kgmem.Invalidf(orBody(field), "holds invalid UTF-8 at byte %d; send UTF-8 text", e.ByteOffset)
	case strings.Contains(e.Err.Error(), "escape sequence"), strings.Contains(e.Err.Error(), "surrogate"):
		return kgmem.Invalidf(orBody(field), "holds an invalid escape sequence at byte %d (a lone UTF-16 surrogate such as \\ud800 is not text)", e.ByteOffset)
	case errors.Is(e.Err, io.ErrUnexpectedEOF):
		return kgmem.Invalidf("body", "is truncated JSON")
	case strings.Contains(e.Err.Error(), "after top-level value"):
		return kgmem.Invalidf("body", "holds data after the JSON object; send exactly one object")
	}
	return kgmem.Invalidf("body", "is malformed JSON at byte %d: %v", e.ByteOffset, e.Err)
}

// semanticError names the member whose value does not fit its field.
func semanticError(e *json.SemanticError) error {
	field := fieldPath(e.JSONPointer)
	if errors.Is(e.Err, json.ErrUnknownName) {
		name := e.JSONPointer.LastToken()
		if name == "" {
			return kgmem.Invalidf(orBody(field), "has a member with an empty name, which is not a known field")
		}
		return kgmem.Invalidf(field, "is not a known field (names are case-sensitive)")
	}
	var fe *kgmem.FieldError
	if errors.As(e.Err, &fe) {
		if field == "" {
			return fe
		}
		return &kgmem.FieldError{Field: field, Reason: fe.Reason, Kind: fe.Kind}
	}
	if e.JSONKind != 0 && e.GoType != nil {
		return kgmem.Invalidf(orBody(field), "must be %s, got JSON %s", jsonKind(e.GoType.Kind().String()), kindName(e.JSONKind))
	}
	if e.Err != nil {
		return kgmem.Invalidf(orBody(field), "%v", e.Err)
	}
	return kgmem.Invalidf(orBody(field), "cannot be decoded: %v", e)
}

// fieldPath writes a JSON pointer the way validation errors name fields:
// /messages/0/content is messages[0].content.
func fieldPath(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.ParseUint(tok, 10, 64); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func orBody(field string) string {
	if field == "" {
		return "body"
	}
	return field
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return k.String()
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

// requireJSONBody refuses a request that carries a body without a JSON
// content type (application/json or any application/*+json) with a 415: a
// web page can send a text/plain or form body to any origin without a CORS
// preflight, but not a JSON one.
func requireJSONBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.ContentLength == 0 || req.Body == nil || req.Body == http.NoBody {
			return next(c)
		}
		ct := req.Header.Get(echo.HeaderContentType)
		if !isJSONMediaType(ct) {
			detail := fmt.Sprintf("the Content-Type header is %q; send the body as application/json", ct)
			if ct == "" {
				detail = "the Content-Type header is missing; send the body as application/json"
			}
			return &echo.HTTPError{Code: http.StatusUnsupportedMediaType, Message: detail, Internal: kgmem.Invalidf("Content-Type", "%s", detail)}
		}
		return next(c)
	}
}

// isJSONMediaType reports whether ct is application/json or
// application/*+json, parameters (charset) aside: a prefix test would take
// application/jsonp or application/json-seq for JSON.
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == echo.MIMEApplicationJSON || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}
