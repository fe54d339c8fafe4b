package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeQuickstart runs the README's quickstart as a newcomer would:
// its first command starts the server (here, serve in process on a fresh
// data directory), the next two are run as pasted with bash and curl, and
// the search answers the context block the README shows.
func TestReadmeQuickstart(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Quickstart\n")
	if !ok {
		t.Fatal("the README has no Quickstart section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := regexp.MustCompile("(?s)```(\\w*)\\n(.*?)```").FindAllStringSubmatch(section, -1)
	var commands []string
	var shown string
	for _, b := range blocks {
		switch b[1] {
		case "sh":
			commands = append(commands, b[2])
		case "":
			shown = b[2]
		}
	}
	if len(commands) != 3 || strings.TrimSpace(commands[0]) != "go run ./cmd/server" || shown == "" {
		t.Fatalf("the quickstart should be three commands (run, add, search) and the context they give: %q, %q", commands, shown)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	url := startServe(t, t.TempDir())
	var out []byte
	for _, cmd := range commands[1:] {
		cmd = strings.ReplaceAll(cmd, "localhost:8080", strings.TrimPrefix(url, "http://"))
		out, err = exec.CommandContext(context.Background(), "bash", "-euo", "pipefail", "-c", cmd).Output()
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
	}
	var answer struct {
		Context  string
		Episodes []json.RawMessage
	}
	if err := json.Unmarshal(out, &answer); err != nil {
		t.Fatalf("the search printed %q: %v", out, err)
	}
	if answer.Context != shown {
		t.Errorf("the search's context is\n%s\nthe README shows\n%s", answer.Context, shown)
	}
}
