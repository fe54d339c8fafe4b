package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestIngestCommand(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "log.jsonl")
	lines := `{"namespace": "u/1", "thread_id": "a", "content": "hello"}
oops
{"namespace": "u/1", "thread_id": "b", "content": "bye"}
`
	if err := os.WriteFile(input, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(dir, "data")
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown format", []string{"--format", "yaml", input}, "--format"},
		{"batch over the server limit", []string{"--batch", "5000", input}, "--batch"},
		{"one checkpoint for two inputs", []string{"--checkpoint", "x", input, input}, "one input"},
		{"bad namespace", []string{"--namespace", "a//b", input}, "--namespace"},
		{"checkpoint never saved", []string{"--checkpoint-every", "0s", input}, "--checkpoint-every"},
		{"negative outage allowance", []string{"--url", "http://127.0.0.1:1", "--unreachable-for", "-1s", input}, "--unreachable-for"},
		{"extraction without LLM", []string{"--data-dir", dataDir, "--extract", input}, "--extract needs an LLM"},
		{"profile in a missing directory", []string{"--data-dir", dataDir, "--cpuprofile", filepath.Join(dir, "no", "cpu.out"), input}, "--cpuprofile"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), append([]string{"ingest"}, tc.args...), &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want one mentioning %q", err, tc.wantErr)
			}
		})
	}

	t.Run("CPU profile", func(t *testing.T) {
		profile := filepath.Join(dir, "cpu.out")
		var out, errOut bytes.Buffer
		if err := run(context.Background(), []string{"ingest", "--data-dir", dataDir + "-profiled", "--checkpoint", filepath.Join(dir, "cp"), "--cpuprofile", profile, input}, &out, &errOut); err != nil {
			t.Fatalf("%v\n%s", err, errOut.String())
		}
		p, err := os.ReadFile(profile)
		// A pprof profile is gzipped protobuf.
		if err != nil || len(p) < 2 || p[0] != 0x1f || p[1] != 0x8b {
			t.Errorf("profile of %d bytes (%v), want a gzipped pprof profile", len(p), err)
		}
	})

	t.Run("dry run", func(t *testing.T) {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), []string{"ingest", "--dry-run", "--data-dir", dataDir + "-dry", input}, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		var s struct {
			Format     string                    `json:"format"`
			DryRun     bool                      `json:"dry_run"`
			Sent       int                       `json:"sent"`
			Bad        int                       `json:"bad"`
			Namespaces map[string]map[string]int `json:"namespaces"`
		}
		if err := json.Unmarshal(out.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v", out.String(), err)
		}
		if s.Format != "jsonl" || !s.DryRun || s.Sent != 2 || s.Bad != 1 || s.Namespaces["u/1"]["a"] != 1 || s.Namespaces["u/1"]["b"] != 1 {
			t.Errorf("dry-run summary %s", out.String())
		}
		if _, err := os.Stat(dataDir + "-dry"); !os.IsNotExist(err) {
			t.Errorf("a dry run created the data directory (%v)", err)
		}
		if _, err := os.Stat(input + ".kgmem-checkpoint"); !os.IsNotExist(err) {
			t.Errorf("a dry run wrote a checkpoint (%v)", err)
		}
		errs, err := os.ReadFile(input + ".kgmem-errors.jsonl")
		if err != nil || !strings.Contains(string(errs), `"line":2`) {
			t.Errorf("errors file %q (%v), want line 2 reported", errs, err)
		}
	})
}

// TestIngestLeftoversAreIgnored checks that the checkpoint and errors files
// `server ingest` writes next to its input are ignored by git, so running
// the README's import inside the repository leaves the work tree clean.
func TestIngestLeftoversAreIgnored(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is required in CI")
		}
		t.Skip("git not installed")
	}
	for _, p := range []string{"testdata/chat.jsonl.kgmem-checkpoint", "chat.jsonl.kgmem-errors.jsonl", "x/y.json.kgmem-checkpoint"} {
		cmd := exec.Command(git, "check-ignore", "-q", "--no-index", p)
		cmd.Dir = "../.."
		if err := cmd.Run(); err != nil {
			t.Errorf("%s is not ignored by .gitignore (%v)", p, err)
		}
	}
}
