package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

// TestSizedJSON: an answer is the encoder's exact output, sent with its
// Content-Length; one that cannot be encoded sends nothing, so that the
// error handler can still answer with a status of its own.
func TestSizedJSON(t *testing.T) {
	type answer struct {
		Name  string    `json:"name"`
		Score []float64 `json:"score"`
		HTML  string    `json:"html"`
	}
	long := answer{Name: string(bytes.Repeat([]byte("é"), maxPooledAnswer))}
	for _, tc := range []struct {
		name   string
		value  any
		indent string
	}{
		{"object", answer{Name: "Caroline", Score: []float64{0.1, 1e-7, 3, 1e21, -0.0, 123456789.125}, HTML: "<b>&</b>"}, ""},
		{"strings to escape", []string{"<script>&amp;", "line\u2028sep\u2029", "bad \xff utf-8", "tab\tnl\n\"q\"", "\x00\x1f"}, ""},
		{"indented", answer{Name: "Melanie"}, "  "},
		{"null", nil, ""},
		{"larger than a pooled buffer", long, ""},
		{"maps, sorted by key", map[string]any{"b": 1, "a": []any{true, nil, 2.5, "x"}, "c": map[string]int{"z": 1, "y": 2}}, ""},
		{"zero values, omitempty and omitzero", memory.SearchResult{Episodes: []memory.EpisodeResult{{Episode: kgmem.Episode{ID: "ep"}, Score: memory.Score{Sources: []memory.SourceScore{{Retriever: "bm25", Rank: 1}}}}}}, ""},
		{"a search answer", searchAnswer(), ""},
		{"bytes, raw JSON, times", struct {
			B []byte          `json:"b"`
			R json.RawMessage `json:"r"`
			T time.Time       `json:"t"`
			P *int            `json:"p"`
		}{[]byte("hi"), json.RawMessage(`{"k": [1, 2]}`), time.Date(2023, 5, 8, 13, 58, 0, 123, time.FixedZone("", 3600)), nil}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", tc.indent)
			if err := enc.Encode(tc.value); err != nil {
				t.Fatal(err)
			}
			s := &sizedJSON{}
			for range 2 { // the second time from a pooled buffer
				rec := httptest.NewRecorder()
				c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/", nil), rec)
				if err := s.Serialize(c, tc.value, tc.indent); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(rec.Body.Bytes(), want.Bytes()) {
					t.Errorf("body %.80q, want %.80q", rec.Body.String(), want.String())
				}
				if got := rec.Header().Get(echo.HeaderContentLength); got != strconv.Itoa(want.Len()) {
					t.Errorf("Content-Length %q, want %d", got, want.Len())
				}
			}
		})
	}

	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/", nil), rec)
	if err := (&sizedJSON{}).Serialize(c, map[string]any{"ok": 1, "bad": make(chan int)}, ""); err == nil {
		t.Fatal("a channel encoded without an error")
	}
	if c.Response().Committed || rec.Body.Len() != 0 {
		t.Errorf("a failed encoding committed the response (%d bytes written)", rec.Body.Len())
	}
}

// searchAnswer is a search's answer with every kind of result filled in.
func searchAnswer() memory.SearchResult {
	at := time.Date(2023, 5, 8, 13, 58, 0, 0, time.UTC)
	score := memory.Score{Final: 0.0801, Relevance: 0.0877, Retention: 0.1412, DecayWeight: 0.9141,
		Sources: []memory.SourceScore{{Retriever: "vector", Rank: 1, Score: 0.5134, Contribution: 0.0003}, {Retriever: "thread", Rank: 3, Score: 1.0 / 3}}}
	ep := kgmem.Episode{ID: "ep_1", Namespace: "acme/u", ThreadID: "t1", MessageID: "m1", Role: "user", Name: "Caroline",
		Content: "I went to the LGBTQ support group <yesterday> & it was powerful", Timestamp: at, CreatedAt: at,
		Metadata: map[string]any{"source": "chat", "n": 3.0}, Decay: kgmem.DecayState{Stability: 5.0625, LastReinforcedAt: at}}
	fact := kgmem.Fact{ID: "f_1", Namespace: "acme/u", SubjectID: "en_1", SubjectName: "Caroline", SubjectType: "person", Predicate: "attends",
		ObjectID: "en_2", ObjectName: "support group", Text: "Caroline attends a support group", Confidence: 0.9, Importance: 7,
		Episodes: []string{"ep_1"}, Attributes: map[string]any{"since": "2023"}, ValidAt: at, CreatedAt: at}
	return memory.SearchResult{
		Facts:    []memory.FactResult{{FactView: memory.NewFactViewAt(fact, at), Provenance: []kgmem.Episode{ep}, Score: score}},
		Episodes: []memory.EpisodeResult{{Episode: ep, Score: score}},
		Entities: []memory.EntityResult{{Entity: kgmem.Entity{ID: "en_1", Namespace: "acme/u", Name: "Caroline", Aliases: []string{"Caro"}, Type: "person", CreatedAt: at, UpdatedAt: at}, Score: score}},
		Items:    []memory.ItemResult{{Item: kgmem.Item{ID: "it_1", Namespace: "acme/u", Text: "prefers tea"}, Score: &score}},
		Graph: memory.ResultGraph{Nodes: []memory.GraphNode{{ID: "en_1", Name: "Caroline", Type: "person"}},
			Edges: []memory.GraphEdge{{ID: "f_1", Source: "en_1", Target: "en_2", Predicate: "attends", Fact: "Caroline attends a support group"}}},
		Context:  "[2023-05-08 13:58] Caroline: I went to the LGBTQ support group",
		Warnings: []string{"graph: timed out"},
	}
}

// BenchmarkSizedJSON encodes a search's answer as the server does and, for
// comparison, with echo's default (encoding/json, streamed):
//
//	go test ./api -run '^$' -bench SizedJSON -benchmem
func BenchmarkSizedJSON(b *testing.B) {
	answer := searchAnswer()
	for _, bc := range []struct {
		name       string
		serializer echo.JSONSerializer
	}{{"sized", &sizedJSON{}}, {"echo_default", echo.DefaultJSONSerializer{}}} {
		b.Run(bc.name, func(b *testing.B) {
			e := echo.New()
			req := httptest.NewRequest(http.MethodPost, "/v1/search", nil)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				if err := bc.serializer.Serialize(e.NewContext(req, rec), answer, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
