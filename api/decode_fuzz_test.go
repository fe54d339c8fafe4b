package api

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/labstack/echo/v4"
)

// FuzzDecodeRequest feeds arbitrary bodies to the decoder of every request
// type. Properties: no panic; every refusal is a 4xx (never a 500), with a
// field for 400s; and whenever the handler's decoder accepts a body, the
// authorisation middleware's namespace peek reads the same namespace, so a
// key can never be checked against one namespace while the handler writes
// another.
func FuzzDecodeRequest(f *testing.F) {
	seeds := []string{
		`{"namespace":"acme","thread_id":"t","messages":[{"id":"m1","content":"hi","timestamp":"2024-01-01T00:00:00Z"}]}`,
		`{"namespace":"acme","query":"who leads?","limit":5,"include":["facts"]}`,
		`{"namespace":"a","NAMESPACE":"b"}`,
		`{"namespace":"a","namespace":"b"}`,
		`{"Namespace":"b","query":"x"}`,
		`{"namespace":"acme","facts":[{"subject":"A","predicate":"p","object":"B"}]}`,
		`{"namespace":"acme","refs":[{"kind":"fact","id":"fact_1"}],"pinned":false}`,
		`{"writes":{"disable_inserts":true},"decay":{"floor":0.5}}`,
		`{"namespace":1}`, `[]`, `null`, `{} {}`, `{"namespace":"acme"`, "\xef\xbb\xbf{}", `{"namespace":"\u0061cme"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint8(0))
	}
	targets := []func() (any, func(any) string){
		func() (any, func(any) string) {
			v := &wire.MemoriesRequest{}
			return v, func(any) string { return string(v.Namespace) }
		},
		func() (any, func(any) string) {
			v := &wire.SearchRequest{}
			return v, func(any) string { return string(v.Namespace) }
		},
		func() (any, func(any) string) {
			v := &wire.FactsRequest{}
			return v, func(any) string { return string(v.Namespace) }
		},
		func() (any, func(any) string) {
			v := &wire.RefsRequest{}
			return v, func(any) string { return string(v.Namespace) }
		},
		func() (any, func(any) string) { return &wire.Settings{}, nil },
	}
	const limit = 1 << 16
	newCtx := func(body []byte) echo.Context {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		req.Body = http.MaxBytesReader(rec, req.Body, limit)
		return echo.New().NewContext(req, rec)
	}
	f.Fuzz(func(t *testing.T, body []byte, pick uint8) {
		dst, nsOf := targets[int(pick)%len(targets)]()
		err := decodeJSON(newCtx(body), dst)
		if err != nil {
			st := statusOf(err)
			if st < 400 || st >= 500 {
				t.Fatalf("decode error %v maps to status %d, want 4xx", err, st)
			}
			var fe *kgmem.FieldError
			if st == http.StatusBadRequest && (!errors.As(err, &fe) || fe.Field == "") {
				t.Fatalf("400 without a field: %v", err)
			}
			return
		}
		if nsOf == nil {
			return
		}
		want := nsOf(dst)
		got, perr := bodyNamespace(newCtx(body), "namespace")
		wantNS, werr := kgmem.ParseNamespace(want)
		if (perr == nil) != (werr == nil) || got != wantNS {
			t.Fatalf("handler decodes namespace %q (%v), authorisation peek reads %q (%v)", want, werr, got, perr)
		}
	})
}
