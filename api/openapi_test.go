package api

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestOpenAPIIsCurrent fails when api/openapi.json is not what the route
// table and the wire types generate: run `go generate ./api`.
func TestOpenAPIIsCurrent(t *testing.T) {
	want, err := OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("api/openapi.json is stale: run `go generate ./api` and commit it")
	}
	if !bytes.Equal(openAPIDocument, want) {
		t.Fatal("the served document is not the generated one")
	}
}

// TestOpenAPIFollowsTheTable: each row of the route table is an operation
// of the document with its id, its statuses and its body, and the contract
// the tests and schemathesis rely on holds: every error is problem+json,
// request bodies are strict, their required members listed.
func TestOpenAPIFollowsTheTable(t *testing.T) {
	raw, err := OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			RequestBody *struct {
				Content map[string]struct {
					Schema map[string]string `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
			Responses map[string]struct {
				Content map[string]json.RawMessage `json:"content"`
			} `json:"responses"`
			Security *[]any `json:"security"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				AdditionalProperties *bool    `json:"additionalProperties"`
				Required             []string `json:"required"`
				Properties           map[string]struct {
					Nullable bool `json:"nullable"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range routeTable() {
		op, ok := doc.Paths[openAPIPath(r.Path)][strings.ToLower(r.Method)]
		if r.Optional != nil {
			if ok {
				t.Errorf("%s is optional and outside the REST document, yet documented", r.Path)
			}
			continue
		}
		if !ok || op.OperationID != r.OperationID {
			t.Errorf("%s %s: operation %q in the document, want %q", r.Method, r.Path, op.OperationID, r.OperationID)
			continue
		}
		if r.Access.public != (op.Security != nil && len(*op.Security) == 0) {
			t.Errorf("%s %s: public %v, but the document's security says otherwise", r.Method, r.Path, r.Access.public)
		}
		for _, res := range r.Responses {
			if _, ok := op.Responses[strconv.Itoa(res.Status)]; !ok {
				t.Errorf("%s %s: status %d is not documented", r.Method, r.Path, res.Status)
			}
		}
		for status, res := range op.Responses {
			if status[0] != '4' && status[0] != '5' {
				continue
			}
			if _, ok := res.Content[problemContentType]; !ok || len(res.Content) != 1 {
				t.Errorf("%s %s: error %s is not problem+json", r.Method, r.Path, status)
			}
		}
		if (r.Request != nil) != (op.RequestBody != nil) {
			t.Errorf("%s %s: request body in the table %v, in the document %v", r.Method, r.Path, r.Request != nil, op.RequestBody != nil)
			continue
		}
		if r.Request == nil {
			continue
		}
		ref := op.RequestBody.Content["application/json"].Schema["$ref"]
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		body, ok := doc.Components.Schemas[name]
		if !ok || body.AdditionalProperties == nil || *body.AdditionalProperties {
			t.Errorf("%s %s: request body %s is not strict (additionalProperties false)", r.Method, r.Path, name)
		}
		// The server refuses a required member given as null.
		for _, member := range body.Required {
			if body.Properties[member].Nullable {
				t.Errorf("%s %s: the required member %s.%s is nullable", r.Method, r.Path, name, member)
			}
		}
	}
	for _, tc := range []struct {
		schema   string
		required []string
	}{
		{"MemoriesRequest", []string{"namespace", "messages"}},
		{"Message", []string{"content"}},
		{"FactsRequest", []string{"namespace", "facts"}},
		{"Triple", []string{"subject", "predicate", "object"}},
		{"SearchRequest", []string{"namespace", "query"}},
		{"RefsRequest", []string{"namespace", "refs"}},
		{"ItemRequest", []string{"namespace", "key", "value"}},
		{"ItemSearchRequest", []string{"namespace_prefix"}},
		{"ItemBatchRequest", []string{"ops"}},
		{"ItemGetOp", []string{"op", "namespace", "key"}},
		{"Settings", nil},
	} {
		got := doc.Components.Schemas[tc.schema].Required
		if strings.Join(got, ",") != strings.Join(tc.required, ",") {
			t.Errorf("%s requires %v, want %v", tc.schema, got, tc.required)
		}
	}
}
