package client_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is kgmem's module path.
const module = "github.com/kgmem/kgmem"

// TestClientDependencies keeps the public Go client, the wire contract and
// kgmem's root package free of the engine: each may import only the
// standard library, the kgmem packages listed, and small third-party
// modules listed (a JSON codec, Unicode normalisation). A program using the
// client must not link SQLite, Prometheus, an LLM or vector database
// client, Neo4j's driver or the web framework; were it to, `go list -deps`
// names the package here.
func TestClientDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	// forbidden are named for the message: what the client must never pull in.
	forbidden := []string{"modernc.org/sqlite", "github.com/prometheus/", "github.com/sashabaranov/go-openai",
		"github.com/milvus-io/", "github.com/neo4j/", "github.com/labstack/echo", "google.golang.org/protobuf"}
	for _, tc := range []struct {
		pkg string
		// kgmem lists the kgmem packages it may import (besides itself).
		kgmem []string
		// modules lists the third-party modules it may import.
		modules []string
	}{
		{module, nil, []string{"golang.org/x/text"}},
		{module + "/api/wire", []string{module}, []string{"golang.org/x/text"}},
		// internal/retry is the retry policy the client shares with the
		// engine's LLM calls; it imports only the standard library (below).
		{module + "/client", []string{module, module + "/api/wire", module + "/internal/retry"}, []string{"golang.org/x/text", "github.com/goccy/go-json"}},
		{module + "/internal/retry", nil, nil},
	} {
		t.Run(strings.TrimPrefix(tc.pkg, module+"/"), func(t *testing.T) {
			out, err := exec.Command(goTool, "list", "-deps", tc.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tc.pkg, err)
			}
			for _, dep := range strings.Fields(string(out)) {
				first, _, _ := strings.Cut(dep, "/")
				switch {
				case dep == tc.pkg:
				case dep == module || strings.HasPrefix(dep, module+"/"):
					if !slices.Contains(tc.kgmem, dep) {
						t.Errorf("%s depends on %s: only %v of kgmem are allowed", tc.pkg, dep, tc.kgmem)
					}
				case !strings.Contains(first, ".") || first == "vendor":
					// the standard library
				default:
					for _, f := range forbidden {
						if strings.HasPrefix(dep, f) {
							t.Errorf("%s depends on %s, a dependency of the engine", tc.pkg, dep)
						}
					}
					if !slices.ContainsFunc(tc.modules, func(m string) bool { return dep == m || strings.HasPrefix(dep, m+"/") }) {
						t.Errorf("%s depends on %s: only the modules %v are allowed", tc.pkg, dep, tc.modules)
					}
				}
			}
		})
	}
}
