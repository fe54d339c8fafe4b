package milvus

import (
	"strconv"
	"strings"

	"github.com/kgmem/kgmem"
)

// Field names of the collection schema.
const (
	fieldID        = "id"
	fieldNamespace = "namespace"
	fieldKind      = "kind"
	fieldCreatedAt = "created_at"
	fieldVector    = "vector"
)

// quote renders s as a Milvus boolean-expression string literal. Milvus parses
// string literals with Go's strconv.Unquote after lexing them as C-style
// double-quoted strings, so strconv.Quote's output (quotes and backslashes
// escaped, control and non-printable characters as \x, \u or \U escapes) is
// read back as exactly s and can never end the literal early.
func quote(s string) string { return strconv.Quote(s) }

// stringList renders values as a Milvus list literal of quoted strings.
func stringList(values []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(v))
	}
	b.WriteByte(']')
	return b.String()
}

// namespaceExpr selects the records of ns, optionally restricted to kinds.
// ns and kinds must already be validated.
func namespaceExpr(ns kgmem.Namespace, kinds []kgmem.Kind) string {
	expr := fieldNamespace + " == " + quote(string(ns))
	if len(kinds) == 0 {
		return expr
	}
	ks := make([]string, len(kinds))
	for i, k := range kinds {
		ks[i] = string(k)
	}
	return expr + " && " + fieldKind + " in " + stringList(ks)
}

// idsExpr selects the records of ns whose id is one of ids.
func idsExpr(ns kgmem.Namespace, ids []string) string {
	return fieldNamespace + " == " + quote(string(ns)) + " && " + fieldID + " in " + stringList(ids)
}
