package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/api/wire"
)

// TestReadAnswer reads bodies with and without a length, and fails on a
// body shorter than its Content-Length.
func TestReadAnswer(t *testing.T) {
	body := `{"episodes":[]}`
	for _, tc := range []struct {
		name    string
		length  int64
		body    string
		want    string
		wantErr error
	}{
		{"with its length", int64(len(body)), body, body, nil},
		{"chunked (no length)", -1, body, body, nil},
		{"empty", 0, "", "", nil},
		{"length above the presized bound", maxPresizedAnswer + 1, body, body, nil},
		{"shorter than its length", int64(len(body)) + 5, body, "", io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := readAnswer(&http.Response{ContentLength: tc.length, Body: io.NopCloser(strings.NewReader(tc.body))})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if err == nil && !bytes.Equal(raw, []byte(tc.want)) {
				t.Errorf("read %q, want %q", raw, tc.want)
			}
		})
	}
}

// TestDecodeAnswer: decodeAnswer (goccy/go-json) gives the values
// encoding/json gives, for a search's answer with every kind of result and
// for the shapes other answers use, and fails where it fails.
func TestDecodeAnswer(t *testing.T) {
	answer, err := os.ReadFile("testdata/search-answer.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		raw  string
		into func() any
	}{
		{"a search's answer", string(answer), func() any { return new(wire.SearchResult) }},
		{"an ingest's answer", `{"episodes": [{"id": "ep_1", "message_id": "m1", "created": true}], "facts": [], "job": {"id": "j1", "status": "queued"}}`, func() any { return new(map[string]any) }},
		{"a fact page", `{"facts": [{"id": "f", "attributes": {"n": 1e300, "s": "\u00e9\ud83d\ude00"}, "valid_at": "2023-05-08T13:58:00+02:00"}], "next": "f"}`, func() any { return new(wire.FactList) }},
		{"unknown fields are ignored", `{"episodes": [], "new_field": {"x": 1}}`, func() any { return new(wire.SearchResult) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, got := tc.into(), tc.into()
			if err := json.Unmarshal([]byte(tc.raw), want); err != nil {
				t.Fatal(err)
			}
			if err := decodeAnswer([]byte(tc.raw), got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decoded\n%+v\nwant (encoding/json)\n%+v", got, want)
			}
		})
	}
	for _, raw := range []string{`{"episodes": [`, `{"episodes": "none"}`, `{"facts": [{"confidence": "high"}]}`, ``} {
		if err := decodeAnswer([]byte(raw), new(wire.SearchResult)); err == nil {
			t.Errorf("%q decoded without an error", raw)
		}
	}
}

// BenchmarkDecodeAnswer decodes testdata/search-answer.json as the client
// does and, for comparison, with encoding/json:
//
//	go test ./client -run '^$' -bench DecodeAnswer -benchmem
func BenchmarkDecodeAnswer(b *testing.B) {
	raw, err := os.ReadFile("testdata/search-answer.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		decode func([]byte, any) error
	}{{"client", decodeAnswer}, {"encoding_json", json.Unmarshal}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				var r wire.SearchResult
				if err := bc.decode(raw, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
