package kgmem_test

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

func TestNamespaceFromLabels(t *testing.T) {
	for _, tc := range []struct {
		labels []string
		want   kgmem.Namespace
	}{
		{[]string{"memories", "user-42"}, "memories/user-42"},
		{[]string{"user 42"}, "user.2042"},
		{[]string{"a/b"}, "a.2Fb"},
		{[]string{"."}, ".2E"},
		{[]string{".."}, ".2E.2E"},
		{[]string{"ü"}, ".C3.BC"},
		{[]string{"🦜"}, ".F0.9F.A6.9C"},
		{[]string{"a.2Fb"}, "a.2E2Fb"},
		{[]string{"%2F"}, ".252F"},
		{[]string{"nul\x00"}, "nul.00"},
		{[]string{"Robert'); DROP TABLE items;--"}, "Robert.27.29.3B.20DROP.20TABLE.20items.3B--"},
	} {
		ns, err := kgmem.NamespaceFromLabels(tc.labels...)
		if err != nil || ns != tc.want {
			t.Errorf("NamespaceFromLabels(%q) = %q, %v; want %q", tc.labels, ns, err, tc.want)
			continue
		}
		back, err := ns.Labels()
		if err != nil || !slices.Equal(back, tc.labels) {
			t.Errorf("%q.Labels() = %q, %v; want %q", ns, back, err, tc.labels)
		}
	}
}

func TestLabelsRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels []string
	}{
		{"no label", nil},
		{"an empty label", []string{"a", ""}},
		{"nine labels", strings.Split("a/b/c/d/e/f/g/h/i", "/")},
		{"a label too long once encoded", []string{strings.Repeat("é", 11)}},
	} {
		if ns, err := kgmem.NamespaceFromLabels(tc.labels...); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("%s: NamespaceFromLabels = %q, %v; want ErrInvalid", tc.name, ns, err)
		}
	}
	// Namespaces that NamespaceFromLabels never writes have no labels.
	for _, ns := range []kgmem.Namespace{"a.2e", "a.41", "a.", "a.2", "a.G0", "..", "a//b"} {
		if labels, err := ns.Labels(); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("%q.Labels() = %q, %v; want ErrInvalid", ns, labels, err)
		}
	}
}

// TestLabelsSharedTable checks the table the Python package's tests check
// too (testdata/labels.json), so both sides map labels alike.
func TestLabelsSharedTable(t *testing.T) {
	raw, err := os.ReadFile("testdata/labels.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Valid []struct {
			Labels    []string `json:"labels"`
			Namespace string   `json:"namespace"`
		} `json:"valid"`
		NotLabels []string `json:"not_labels"`
	}
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	for _, c := range table.Valid {
		ns, err := kgmem.NamespaceFromLabels(c.Labels...)
		if err != nil || string(ns) != c.Namespace {
			t.Errorf("NamespaceFromLabels(%q) = %q, %v; want %q", c.Labels, ns, err, c.Namespace)
		}
		if got, err := kgmem.Namespace(c.Namespace).Labels(); err != nil || !slices.Equal(got, c.Labels) {
			t.Errorf("Labels(%q) = %q, %v; want %q", c.Namespace, got, err, c.Labels)
		}
	}
	for _, ns := range table.NotLabels {
		if got, err := kgmem.Namespace(ns).Labels(); err == nil {
			t.Errorf("Labels(%q) = %q; want an error", ns, got)
		}
	}
}
