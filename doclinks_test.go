package kgmem_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// docFiles are the user documentation: the top-level Markdown files,
// examples/README.md and everything under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md", "examples/README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	fence      = regexp.MustCompile("^\\s*(```|~~~)")
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLink    = regexp.MustCompile(`^\s*\[[^\]]+\]:\s+(\S+)`)
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

// proseLines returns a Markdown file's lines outside code fences, with
// code spans blanked, each with its line number.
func proseLines(text string) map[int]string {
	out := map[int]string{}
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if !inFence {
			out[i+1] = codeSpan.ReplaceAllString(line, "``")
		}
	}
	return out
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces turned into hyphens.
func slug(h string) string {
	h = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(h, "$1") // a link's text
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the anchors a Markdown file defines: its headings' slugs
// (a repeated one numbered -1, -2…) and explicit <a name>/<a id>.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(text) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
	}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		m := heading.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		s := slug(strings.ReplaceAll(m[1], "`", ""))
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// TestDocLinks: every relative link of the documentation names a file that
// exists and, with a #fragment into a Markdown file, a heading it has.
func TestDocLinks(t *testing.T) {
	files := docFiles(t)
	if len(files) < 10 {
		t.Fatalf("found %d documentation files: %v", len(files), files)
	}
	anchorsOf := map[string]map[string]bool{}
	read := func(path string) (map[string]bool, error) {
		if a, ok := anchorsOf[path]; ok {
			return a, nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		anchorsOf[path] = anchors(string(raw))
		return anchorsOf[path], nil
	}
	checked := 0
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range proseLines(string(raw)) {
			var targets []string
			for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
				targets = append(targets, m[1])
			}
			if m := refLink.FindStringSubmatch(line); m != nil {
				targets = append(targets, m[1])
			}
			for _, target := range targets {
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				path, frag, _ := strings.Cut(target, "#")
				resolved := file
				if path != "" {
					resolved = filepath.Join(filepath.Dir(file), path)
				}
				st, err := os.Stat(resolved)
				if err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", file, n, target, resolved)
					continue
				}
				if frag == "" || st.IsDir() || !strings.HasSuffix(resolved, ".md") {
					continue
				}
				a, err := read(resolved)
				if err != nil {
					t.Fatal(err)
				}
				if !a[frag] {
					t.Errorf("%s:%d: link %q: %s has no heading #%s", file, n, target, resolved, frag)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link checked")
	}
}

// The slug rules the link check relies on, as GitHub applies them.
func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Truth over time", "truth-over-time"},
		{"Use as a LangGraph store (LangMem)", "use-as-a-langgraph-store-langmem"},
		{"Limits: predicates, names, times", "limits-predicates-names-times"},
		{"Neo4j: the graph you can look at", "neo4j-the-graph-you-can-look-at"},
		{"Consistency with the graph: outbox, reindex, check", "consistency-with-the-graph-outbox-reindex-check"},
		{"`server ingest` flags", "server-ingest-flags"},
	} {
		if got := slug(strings.ReplaceAll(tc.heading, "`", "")); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}
