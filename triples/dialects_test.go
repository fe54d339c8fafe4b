package triples

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
)

// Rejections of response_format as real OpenAI-compatible servers send them
// (captured from the servers scripts/llm.sh starts, and from the providers'
// documented error bodies). Each is a deterministic rejection: auto mode
// steps down at once, without spending a retry.
var formatRejections = []struct {
	server string
	// rejects is the response_format types the server refuses; calls is
	// how many requests the first extraction takes (one per refused step,
	// then the answer).
	rejects []string
	calls   int
	status  int
	body    string
}{
	{"llama-cpp-python 0.3.36", []string{"json_schema"}, 2, 500, llamaCppPythonRejection},
	{"OpenAI, an older model", []string{"json_schema"}, 2, 400,
		`{"error":{"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.","type":"invalid_request_error","param":"response_format","code":null}}`},
	{"vLLM without guided decoding", []string{"json_schema"}, 2, 400,
		`{"object":"error","message":"response_format.type must be one of 'text', 'json_object'","type":"BadRequestError","param":null,"code":400}`},
	{"a server with no JSON mode", []string{"json_schema", "json_object"}, 4, 422,
		`{"error":{"message":"Unsupported value: 'response_format.type' does not support this value with this model.","param":"response_format.type"}}`},
}

// TestDialectRejectionsStepDown runs each captured rejection through auto
// mode against a server that answers it to the rejected format and
// accepts the next: one rejected request, then the answer; the warning is
// one short line; the next call starts from the remembered mode.
func TestDialectRejectionsStepDown(t *testing.T) {
	for _, tc := range formatRejections {
		t.Run(tc.server, func(t *testing.T) {
			var mu sync.Mutex
			var bodies []map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				raw, _ := io.ReadAll(r.Body)
				var body map[string]any
				_ = json.Unmarshal(raw, &body)
				mu.Lock()
				bodies = append(bodies, body)
				mu.Unlock()
				format, _ := body["response_format"].(map[string]any)
				typ, _ := format["type"].(string)
				w.Header().Set("Content-Type", "application/json")
				if slices.Contains(tc.rejects, typ) {
					w.WriteHeader(tc.status)
					_, _ = io.WriteString(w, tc.body)
					return
				}
				reply, _ := json.Marshal(bobAnswer)
				fmt.Fprintf(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, reply)
			}))
			defer srv.Close()
			x, err := NewExtractor(LLMConfig{BaseURL: srv.URL + "/v1", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "1", "A", "Bob leads the ML team", t0)}})
			if err != nil || len(ex.Triples) != 1 {
				t.Fatalf("extract: %+v %v", ex.Triples, err)
			}
			for _, w := range ex.Warnings {
				if strings.ContainsAny(w, "\r\n") || len(w) > 400 {
					t.Errorf("warning is not one short line: %q", w)
				}
			}
			if ex.Usage.Calls != tc.calls {
				t.Errorf("%d calls, want %d: one per refused step, never a retry", ex.Usage.Calls, tc.calls)
			}
			mu.Lock()
			n := len(bodies)
			mu.Unlock()
			if _, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "2", "A", "Bob leads the ML team", t0)}}); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(bodies) != n+1 {
				t.Errorf("the second call made %d requests, want 1 (the mode is remembered)", len(bodies)-n)
			}
		})
	}
}

// TestJSONObjectCarriesTheSchema checks auto mode's step after json_schema:
// response_format {"type": "json_object", "schema": …}, the form
// llama-cpp-python turns into a grammar.
func TestJSONObjectCarriesTheSchema(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		format, _ := body["response_format"].(map[string]any)
		w.Header().Set("Content-Type", "application/json")
		if format["type"] == "json_schema" {
			w.WriteHeader(500)
			_, _ = io.WriteString(w, llamaCppPythonRejection)
			return
		}
		got = format
		reply, _ := json.Marshal(bobAnswer)
		fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`, reply)
	}))
	defer srv.Close()
	x, err := NewExtractor(LLMConfig{BaseURL: srv.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "1", "A", "Bob leads the ML team", t0)}}); err != nil {
		t.Fatal(err)
	}
	schema, _ := got["schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	if got["type"] != "json_object" || props["facts"] == nil {
		t.Errorf("response_format %v: want json_object with the extraction schema", got)
	}
}

func TestOneLine(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"first line\nTraceback (most recent call last):\n  File ...", "first line"},
		{"  spaced \t out  ", "spaced out"},
		{long, strings.Repeat("é", 100) + "…"},
	} {
		if got := oneLine(tc.in); got != tc.want {
			t.Errorf("oneLine(%.20q) = %.40q, want %.40q", tc.in, got, tc.want)
		}
	}
}
