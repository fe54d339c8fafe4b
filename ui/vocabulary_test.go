package ui_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/internal/openapidoc"
)

// TestAPICallsUseTheVocabulary checks that every call of the explorer's API
// module (src/api.ts) is named by an operationId of api/openapi.json, as
// docs/reference/vocabulary.md says (an "Async" suffix marks the
// background-job form of an operation).
func TestAPICallsUseTheVocabulary(t *testing.T) {
	operations, err := openapidoc.Operations("../api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for _, op := range operations {
		if op.ID != "" {
			ops[op.ID] = true
		}
	}
	src, err := os.ReadFile("src/api.ts")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(src), "export const api = {")
	if !ok {
		t.Fatal("src/api.ts declares no `export const api = {`")
	}
	block, _, _ = strings.Cut(block, "\n};")
	calls := regexp.MustCompile(`(?m)^  (\w+):`).FindAllStringSubmatch(block, -1)
	if len(calls) == 0 {
		t.Fatal("found no calls in src/api.ts's api object")
	}
	for _, m := range calls {
		if name := m[1]; !ops[name] && !ops[strings.TrimSuffix(name, "Async")] {
			t.Errorf("src/api.ts names a call %q, which is no operationId of api/openapi.json", name)
		}
	}
}
