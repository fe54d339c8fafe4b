package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// commandLines are the command lines of the commands that read the
// configuration table.
func commandLines() map[commands][]string {
	return map[commands][]string{
		cmdServe:   {"serve"},
		cmdMCP:     {"mcp"},
		cmdIngest:  {"ingest"},
		cmdSweep:   {"sweep"},
		cmdReindex: {"reindex"},
		cmdCheck:   {"check"},
		cmdKeys:    {"keys", "create"},
	}
}

// helpOf runs `server args… --help` and returns what it printed.
func helpOf(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(t.Context(), append(args, "--help"), &out, io.Discard); err != nil {
		t.Fatalf("%q --help: %v", args, err)
	}
	return out.String()
}

// TestRootHelpListsCommands: `server --help` and `server help` list the
// subcommands and none of serve's seventy settings.
func TestRootHelpListsCommands(t *testing.T) {
	var viaHelp bytes.Buffer
	if err := run(t.Context(), []string{"help"}, &viaHelp, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{helpOf(t), viaHelp.String()} {
		for _, cmd := range []string{"serve", "mcp", "ingest", "sweep", "reindex", "check", "keys", "config", "completion", "version"} {
			if !strings.Contains(out, "\n  "+cmd+" ") {
				t.Errorf("server --help does not list %s:\n%s", cmd, out)
			}
		}
		if strings.Contains(out, "--embedder") || strings.Count(out, "\n") > 40 {
			t.Errorf("server --help lists serve's settings:\n%s", out)
		}
	}
}

// TestCommandHelpShowsItsOwnSettings: each command's help lists its own
// flags and every setting of the table it uses, grouped by component, and
// none it does not use.
func TestCommandHelpShowsItsOwnSettings(t *testing.T) {
	rows := (&config{}).settings()
	for on, args := range commandLines() {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out := helpOf(t, args...)
			for _, s := range rows {
				if s.Flag == "" {
					continue
				}
				listed := strings.Contains(out, "--"+s.Flag+" ") || strings.Contains(out, "--"+s.Flag+"\n")
				if used := s.On&on != 0; listed != used && !(s.Flag == "namespace" || s.Flag == "url") {
					t.Errorf("--%s listed %v, used %v:\n%s", s.Flag, listed, used, out)
				}
				if s.On&on != 0 && !strings.Contains(out, "\n"+s.Component.String()+":\n") {
					t.Errorf("no %q section for --%s", s.Component, s.Flag)
				}
			}
		})
	}
	// What the issue reported: keys create --help was 119 lines, mostly
	// server flags.
	out := helpOf(t, "keys", "create")
	for _, want := range []string{"--name", "--prefix", "--right", "--json", "--data-dir", "--graph", "--neo4j-uri"} {
		if !strings.Contains(out, want) {
			t.Errorf("keys create --help lacks %s:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n > 30 {
		t.Errorf("keys create --help is %d lines:\n%s", n, out)
	}
	if out := helpOf(t, "ingest"); !strings.Contains(out, "--batch") || !strings.Contains(out, "--api-key") || strings.Contains(out, "--rate-limit") {
		t.Errorf("ingest --help:\n%s", out)
	}
}

// TestCompletion: `server completion SHELL` prints a script for the
// binary, and the enumerated settings complete their choices.
func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "# bash completion V2 for server",
		"zsh":  "#compdef server",
		"fish": "complete -c server",
	} {
		var out bytes.Buffer
		if err := run(t.Context(), []string{"completion", shell}, &out, io.Discard); err != nil || !strings.Contains(out.String(), want) {
			t.Errorf("completion %s: %v, want %q in it", shell, err, want)
		}
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"serve", "--graph", ""}, []string{"sqlite", "neo4j"}},
		{[]string{"ingest", "--embedder", ""}, []string{"auto", "hash", "static", "openai"}},
		{[]string{"keys", "create", "--right", ""}, []string{"read", "write"}},
		{[]string{"ke"}, []string{"keys"}},
	} {
		var out bytes.Buffer
		if err := run(t.Context(), append([]string{cobra.ShellCompRequestCmd}, tc.args...), &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(out.String(), "\n") {
			if line != "" && !strings.HasPrefix(line, ":") && !strings.HasPrefix(line, "Completion ended") {
				name, _, _ := strings.Cut(line, "\t")
				got = append(got, name)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("completing %q: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestVersionSpellings: --version, -version (Go's flag package spelling)
// and the version command print the version.
func TestVersionSpellings(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"-v"}, {"version"}} {
		var out bytes.Buffer
		if err := run(t.Context(), args, &out, io.Discard); err != nil || out.String() != "kgmem "+version+"\n" {
			t.Errorf("%q: %q %v", args, out.String(), err)
		}
	}
}

// sampleValue returns a value of s other than its default that passes
// its rule, as the environment or a flag would give it.
func sampleValue(t *testing.T, s setting) string {
	t.Helper()
	def := s.Value.defaultString()
	candidates := []string{"2048", "1", "2", "0", "3", "0.5", "1s", "3s", "750ms", "true", "false", "a=b", "facts",
		"127.0.0.1:6061", "team/x", "a.lan", "https://app.example", strings.Repeat("k", 40), "sample"}
	if c, ok := s.Rule.(oneOf); ok {
		candidates = c
	}
	for _, c := range candidates {
		var scratch config
		row := scratch.settings()[slices.IndexFunc(scratch.settings(), func(r setting) bool { return r.envName() == s.envName() })]
		if c == def || row.Value.Set(c) != nil || row.check() != nil {
			continue
		}
		return row.Value.String()
	}
	t.Fatalf("no sample value for %s", s.name())
	return ""
}

// TestEveryVariableBindsItsSetting sets each setting's variable, and then
// its flag, and checks that the command that uses it reads them, the flag
// winning; a command that does not use a setting ignores its variable.
func TestEveryVariableBindsItsSetting(t *testing.T) {
	for _, s := range (&config{}).settings() {
		t.Run(s.envName(), func(t *testing.T) {
			value := sampleValue(t, s)
			on := s.On & (^s.On + 1) // one command that uses it
			t.Setenv(s.envName(), value)
			cmd := &cobra.Command{Use: "test"}
			cfg := tableFlags(cmd, on)
			if err := cfg.validateSettings(); err != nil {
				t.Fatal(err)
			}
			if got := fieldOf(cfg, s).String(); got != value {
				t.Errorf("$%s=%s gave %q", s.envName(), value, got)
			}
			if s.Flag != "" {
				if err := cmd.ParseFlags([]string{"--" + s.Flag + "=" + s.Value.defaultString()}); err != nil {
					t.Fatal(err)
				}
				if got := fieldOf(cfg, s).String(); got != s.Value.defaultString() {
					t.Errorf("--%s=%s after $%s=%s gave %q", s.Flag, s.Value.defaultString(), s.envName(), value, got)
				}
			}
			if off := everyCommand &^ s.On; off != 0 {
				t.Setenv(s.envName(), "not a value")
				cfg := tableFlags(&cobra.Command{Use: "test"}, off&(^off+1))
				if err := cfg.validateSettings(); err != nil {
					t.Errorf("a command that does not use %s read its variable: %v", s.name(), err)
				}
			}
		})
	}
}

// fieldOf is the binding of s's field in cfg.
func fieldOf(cfg *config, s setting) binding {
	rows := cfg.settings()
	return rows[slices.IndexFunc(rows, func(r setting) bool { return r.envName() == s.envName() })].Value
}

// TestValidationNamesTheSetting gives every setting with a rule a value
// that breaks it, by flag and by variable, and checks that the error names
// the flag; the defaults pass every rule.
func TestValidationNamesTheSetting(t *testing.T) {
	for on := range commandLines() {
		if _, err := parseConfig(on); err != nil {
			t.Errorf("the defaults of %s: %v", on.names(), err)
		}
	}
	bad := []string{"nope", "-1000000000", "1000000000", "-1000h", "1000000h", "-0.5", "1.5", "1ns", "0", "0s", "1", "0.0.0.0:6060", "x", "http://a.lan/app"}
	tested := 0
	for _, s := range (&config{}).settings() {
		if s.Rule == nil {
			continue
		}
		var scratch config
		row := scratch.settings()[slices.IndexFunc(scratch.settings(), func(r setting) bool { return r.envName() == s.envName() })]
		i := slices.IndexFunc(bad, func(v string) bool { return row.Value.Set(v) == nil && row.check() != nil })
		if i < 0 {
			continue // every value it parses is valid (negative ones mean off)
		}
		tested++
		on := s.On & (^s.On + 1)
		t.Run(s.envName(), func(t *testing.T) {
			if s.Flag != "" {
				if _, err := parseConfig(on, "--"+s.Flag, bad[i]); err == nil || !strings.Contains(err.Error(), "--"+s.Flag) {
					t.Errorf("--%s %s: %v, want an error naming --%s", s.Flag, bad[i], err, s.Flag)
				}
			}
			t.Setenv(s.envName(), bad[i])
			if _, err := parseConfig(on); err == nil || !strings.Contains(err.Error(), s.name()) {
				t.Errorf("$%s=%s: %v, want an error naming %s", s.envName(), bad[i], err, s.name())
			}
		})
	}
	if tested < 25 {
		t.Errorf("only %d settings had a value breaking their rule", tested)
	}
}

// TestCLIReferenceNamesEveryCommand: docs/reference/cli.md names every
// command of the binary.
func TestCLIReferenceNamesEveryCommand(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(prefix string, c *cobra.Command)
	walk = func(prefix string, c *cobra.Command) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() {
				continue
			}
			name := prefix + " " + sub.Name()
			if !strings.Contains(string(page), "`"+name) {
				t.Errorf("docs/reference/cli.md does not name `%s`", name)
			}
			walk(name, sub)
		}
	}
	root := newRootCommand("kgmem", streams{out: io.Discard, err: io.Discard})
	root.InitDefaultCompletionCmd()
	walk("kgmem", root)
}
