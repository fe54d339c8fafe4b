package api

import (
	"bytes"
	"strconv"
	"sync"

	gojson "github.com/goccy/go-json"
	"github.com/labstack/echo/v4"
)

// sizedJSON is the server's echo.JSONSerializer: it encodes an answer whole
// before sending it, with its Content-Length. echo's default streams the
// encoder's output, so that a search's 10 KB answer went out chunked, in
// one write system call more, for the client to unchunk; and a value that
// failed to encode half-way had already sent its status and part of its
// body, where now nothing is sent and the error handler answers.
//
// It encodes with goccy/go-json, whose output is encoding/json's byte for
// byte (TestSizedJSON compares them) in about 0.7 of the time on a search's
// answer (BenchmarkSizedJSON). Requests are still decoded by encoding/json
// (decodeJSON), for its strict checks and error positions.
type sizedJSON struct {
	buffers sync.Pool // *bytes.Buffer
}

// maxPooledAnswer bounds the buffers kept for reuse: one huge answer (a
// browse page of long episodes) must not pin its memory for good.
const maxPooledAnswer = 1 << 20

// Serialize encodes i (indented with indent, when set) and writes it.
func (s *sizedJSON) Serialize(c echo.Context, i any, indent string) error {
	buf, _ := s.buffers.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer func() {
		if buf.Cap() <= maxPooledAnswer {
			buf.Reset()
			s.buffers.Put(buf)
		}
	}()
	enc := gojson.NewEncoder(buf)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(i); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(buf.Len()))
	_, err := c.Response().Write(buf.Bytes())
	return err
}

// Deserialize is echo's: handlers decode requests with decodeJSON.
func (s *sizedJSON) Deserialize(c echo.Context, i any) error {
	return echo.DefaultJSONSerializer{}.Deserialize(c, i)
}

// compile-time check that sizedJSON is what echo expects.
var _ echo.JSONSerializer = (*sizedJSON)(nil)
