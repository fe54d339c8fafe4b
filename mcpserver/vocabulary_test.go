package mcpserver_test

import (
	"context"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/internal/openapidoc"
	"github.com/kgmem/kgmem/procedural"
)

// vocabularyTables reads the tables of docs/reference/vocabulary.md: each
// is its rows, each row its cells' backticked names.
func vocabularyTables(t *testing.T) [][][][]string {
	t.Helper()
	raw, err := os.ReadFile("../docs/reference/vocabulary.md")
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile("`([^`]*)`")
	var tables [][][][]string
	inTable := false
	for line := range strings.SplitSeq(string(raw), "\n") {
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		if !inTable {
			tables = append(tables, nil) // the header row
			inTable = true
			continue
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		var row [][]string
		for _, cell := range strings.Split(strings.Trim(line, "|"), "|") {
			var names []string
			for _, m := range code.FindAllStringSubmatch(cell, -1) {
				names = append(names, m[1])
			}
			row = append(row, names)
		}
		tables[len(tables)-1] = append(tables[len(tables)-1], row)
	}
	return tables
}

// TestVocabulary holds the Go client, the procedural package and the MCP
// server to docs/reference/vocabulary.md: every REST operation is a row,
// each row's Go methods and MCP tools exist, and every tool is in a row.
func TestVocabulary(t *testing.T) {
	tables := vocabularyTables(t)
	if len(tables) < 2 {
		t.Fatalf("vocabulary.md has %d tables, want the operations and procedural memory first", len(tables))
	}
	ops, procedures := tables[0], tables[1]

	operations, err := openapidoc.Operations("../api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, op := range operations {
		if op.ID != "" {
			served = append(served, op.ID)
		}
	}

	list, err := newFixture(t).session(adminKey, "").ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, tool := range list.Tools {
		tools = append(tools, tool.Name)
	}

	clientType, instructionsType := reflect.TypeFor[*client.Client](), reflect.TypeFor[*procedural.Instructions]()
	var documented, named []string
	for _, row := range ops {
		if len(row) != 5 || len(row[1]) != 2 {
			t.Fatalf("operations row %v: want 5 cells, the REST one naming the route and its operationId", row)
		}
		opID := row[1][1]
		documented = append(documented, opID)
		if want := strings.ToUpper(opID[:1]) + opID[1:]; !slices.ContainsFunc(row[2], func(m string) bool { return strings.EqualFold(m, want) }) {
			t.Errorf("%s: the Go column %v lacks %s", opID, row[2], want)
		}
		for _, m := range row[2] {
			if _, ok := clientType.MethodByName(m); !ok {
				t.Errorf("%s: client.Client has no method %s", opID, m)
			}
		}
		named = append(named, row[4]...)
	}
	for _, row := range procedures {
		if len(row) != 4 {
			t.Fatalf("procedural row %v: want 4 cells", row)
		}
		for _, m := range row[1] {
			if _, ok := instructionsType.MethodByName(m); !ok {
				t.Errorf("procedural.Instructions has no method %s", m)
			}
		}
		named = append(named, row[3]...)
	}
	slices.Sort(served)
	slices.Sort(documented)
	if !slices.Equal(served, documented) {
		t.Errorf("operations in api/openapi.json %v, in vocabulary.md %v", served, documented)
	}
	slices.Sort(tools)
	slices.Sort(named)
	if !slices.Equal(tools, named) {
		t.Errorf("MCP tools served %v, in vocabulary.md %v", tools, named)
	}
}
