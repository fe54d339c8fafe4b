package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// syncBuffer is a terminal stand-in: stdout and stderr written to one place.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The progress bar on a terminal shared with the summary: its first frame
// is drawn before anything is read (the clock of its rate starts there),
// and its last line ends before the JSON summary begins.
func TestIngestProgressLeavesTheSummaryClean(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "chat.jsonl")
	var in strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&in, `{"namespace":"demo/progress","thread_id":"t%d","role":"user","content":"message %d"}`+"\n", i%10, i)
	}
	if err := os.WriteFile(input, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var term syncBuffer
	if err := run(t.Context(), []string{"ingest", "--data-dir", filepath.Join(dir, "data"), "--progress", "always", input}, &term, &term); err != nil {
		t.Fatal(err)
	}
	out := term.String()
	frames := strings.FieldsFunc(strings.SplitN(out, "\n", 2)[0], func(r rune) bool { return r == '\r' })
	if len(frames) == 0 || !strings.Contains(frames[0], " 0 msgs (0 new)") {
		t.Errorf("the first frame is drawn after the import began: %q", frames)
	}
	bar, summary, ok := strings.Cut(out, "\n{\n")
	if !ok || strings.Contains(bar, "{") {
		t.Fatalf("the summary does not start on a line of its own:\n%q", out)
	}
	if !strings.Contains(bar, "2000 msgs (2000 new)") {
		t.Errorf("the bar's last frame does not show the final counts: %q", bar)
	}
	var s struct{ Read, Created int }
	if err := json.Unmarshal([]byte("{\n"+summary), &s); err != nil || s.Read != 2000 || s.Created != 2000 {
		t.Errorf("summary %q: %+v %v", summary, s, err)
	}
}

// An import that reads no message fails: its summary is still printed, and
// stderr says why (every record bad, with the first reason; or no record).
func TestIngestThatReadsNothingFails(t *testing.T) {
	export, err := os.ReadFile("../../chatlog/testdata/conversations.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, format, body string
		args               []string
		wants              []string
	}{
		{"ChatGPT export without --namespace", "chatgpt", string(export), nil,
			[]string{"no message was read", "all 5 records are bad", "--namespace", "kgmem-errors.jsonl"}},
		{"JSON array with no records", "openai", "[]", nil,
			[]string{"no message was read", "the input holds no records"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			input := filepath.Join(dir, "export.json")
			if err := os.WriteFile(input, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := serverProcess(t, append([]string{"ingest", "--data-dir", filepath.Join(dir, "data"), "--format", tc.format, "--progress", "never", input}, tc.args...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() == 0 {
				t.Fatalf("exit: %v, want a non-zero exit; stderr %s", err, stderr.String())
			}
			for _, want := range tc.wants {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr %q does not say %q", stderr.String(), want)
				}
			}
			var s struct{ Read int }
			if err := json.Unmarshal(stdout.Bytes(), &s); err != nil || s.Read != 0 {
				t.Errorf("summary %q: %+v %v", stdout.String(), s, err)
			}
		})
	}
}
