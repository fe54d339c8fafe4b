package main

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestFlagsAnywhere parses ingest's command lines as `server` does: flags
// before, between and after the files, "--" ending the flags, and the
// single-dash spelling of Go's flag package.
func TestFlagsAnywhere(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		url        string
		dry        bool
		positional []string
	}{
		{[]string{"a.jsonl", "--url", "http://x"}, "http://x", false, []string{"a.jsonl"}},
		{[]string{"--url=http://x", "a.jsonl", "b.jsonl", "--dry-run"}, "http://x", true, []string{"a.jsonl", "b.jsonl"}},
		{[]string{"a.jsonl", "--dry-run", "b.jsonl"}, "", true, []string{"a.jsonl", "b.jsonl"}},
		{[]string{"--url", "-weird", "a.jsonl"}, "-weird", false, []string{"a.jsonl"}},
		{[]string{"a.jsonl", "--", "--url", "x"}, "", false, []string{"a.jsonl", "--url", "x"}},
		{[]string{"-", "--dry-run"}, "", true, []string{"-"}},
		{[]string{"a.jsonl", "-url=http://x", "-dry-run"}, "http://x", true, []string{"a.jsonl"}},
	} {
		root := newRootCommand("server", streams{out: io.Discard, err: io.Discard})
		cmd, rest, err := root.Find(goStyleFlags(root, append([]string{"ingest"}, tc.args...)))
		if err != nil || cmd.Name() != "ingest" {
			t.Fatalf("%q: found %s: %v", tc.args, cmd.Name(), err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		url, _ := cmd.Flags().GetString("url")
		dry, _ := cmd.Flags().GetBool("dry-run")
		if url != tc.url || dry != tc.dry || !slices.Equal(cmd.Flags().Args(), tc.positional) {
			t.Errorf("%q: url %q dry %v args %q; want %q %v %q", tc.args, url, dry, cmd.Flags().Args(), tc.url, tc.dry, tc.positional)
		}
	}
	if err := run(t.Context(), []string{"ingest", "a.jsonl", "--nope"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "--nope") {
		t.Errorf("an unknown flag after an argument: %v, want an error naming it", err)
	}
}

// TestKeysRevokeWithFlagsAfterTheID: `keys revoke ID --data-dir X` revokes
// the key in X, where the flag used to be taken for a second argument.
func TestKeysRevokeWithFlagsAfterTheID(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(t.Context(), []string{"keys", "create", "--name", "ci", "--prefix", "ci", "--json", "--data-dir", dir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(out.Bytes(), &created); err != nil || created.ID == "" {
		t.Fatalf("create printed %q: %v", out.String(), err)
	}
	if err := run(t.Context(), []string{"keys", "revoke", created.ID, "--data-dir", dir}, io.Discard, io.Discard); err != nil {
		t.Fatalf("keys revoke ID --data-dir: %v", err)
	}
	out.Reset()
	if err := run(t.Context(), []string{"keys", "list", "--json", "--data-dir", dir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var listed []struct {
		ID      string  `json:"id"`
		Revoked *string `json:"revoked_at"`
	}
	if err := json.Unmarshal(out.Bytes(), &listed); err != nil || len(listed) != 1 {
		t.Fatalf("keys list printed %q: %v", out.String(), err)
	}
	for _, k := range listed {
		if k.ID == created.ID && k.Revoked == nil {
			t.Errorf("key %s still active after revoke: %s", k.ID, out.String())
		}
	}
}

// TestVersionAndKeysHelp: `--version` prints the version, `keys --help`
// the keys commands, as the tools users know do.
func TestVersionAndKeysHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--version"}, "kgmem "},
		{[]string{"keys", "--help"}, "create"},
	} {
		var out bytes.Buffer
		if err := run(t.Context(), tc.args, &out, io.Discard); err != nil || !bytes.Contains(out.Bytes(), []byte(tc.want)) {
			t.Errorf("%q: %v, printed %q; want %q in it", tc.args, err, out.String(), tc.want)
		}
	}
}
