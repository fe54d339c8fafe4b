package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeConfigFile writes a configuration file of the lines and returns its
// path.
func writeConfigFile(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kgmem.env")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigFile: a configuration file holds the variables one to one,
// under the environment and the flags.
func TestConfigFile(t *testing.T) {
	file := writeConfigFile(t,
		"# kgmem",
		"",
		"KGMEM_GRAPH_DEPTH=3",
		`export KGMEM_ADDR="127.0.0.1:9000"`,
		"KGMEM_ALLOWED_HOSTS = a.lan, b.lan",
		"OPENAI_API_KEY='sk-file'",
		"KGMEM_RATE_LIMIT=0",
	)
	for _, tc := range []struct {
		name  string
		env   map[string]string
		args  []string
		depth int
	}{
		{"the file", nil, []string{"--config-file", file}, 3},
		{"the file from its variable", map[string]string{"KGMEM_CONFIG_FILE": file}, nil, 3},
		{"the environment wins", map[string]string{"KGMEM_GRAPH_DEPTH": "4"}, []string{"--config-file", file}, 4},
		{"the flag wins", map[string]string{"KGMEM_GRAPH_DEPTH": "4"}, []string{"--graph-depth", "1", "--config-file", file}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			t.Setenv("OPENAI_API_KEY", "")
			cfg, err := parseConfig(cmdServe, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.GraphDepth != tc.depth || cfg.Addr != "127.0.0.1:9000" || cfg.EmbedAPIKey != "sk-file" || cfg.LLMAPIKey != "sk-file" ||
				strings.Join(cfg.Security.AllowedHosts, ",") != "a.lan,b.lan" || cfg.Security.RateLimit != 0 {
				t.Errorf("graph depth %d (want %d), addr %q, keys %q %q, hosts %q, rate %v",
					cfg.GraphDepth, tc.depth, cfg.Addr, cfg.EmbedAPIKey, cfg.LLMAPIKey, cfg.Security.AllowedHosts, cfg.Security.RateLimit)
			}
		})
	}
}

// TestConfigFileRejects: a file naming no setting, or a value its setting
// refuses, stops the command with an error naming the line or the setting.
func TestConfigFileRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"a misspelt name", []string{"# x", "KGMEM_GRAPH_DEPT=3"}, "kgmem.env:2: KGMEM_GRAPH_DEPT is not a kgmem setting"},
		{"no =", []string{"KGMEM_GRAPH_DEPTH"}, "kgmem.env:1: want NAME=value"},
		{"another file", []string{"KGMEM_CONFIG_FILE=/etc/kgmem.env"}, "cannot name another"},
		{"a malformed value", []string{"KGMEM_GRAPH_DEPTH=lots"}, "KGMEM_GRAPH_DEPTH in "},
		{"a value out of range", []string{"KGMEM_GRAPH_DEPTH=9"}, "--graph-depth is 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig(cmdServe, "--config-file", writeConfigFile(t, tc.lines...))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want an error with %q", err, tc.want)
			}
		})
	}
	if _, err := parseConfig(cmdServe, "--config-file", filepath.Join(t.TempDir(), "none.env")); err == nil || !strings.Contains(err.Error(), "--config-file") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestConfigFileThroughTheCommandLine: `keys create --config-file F`
// creates the key in the data directory F names, and ignores a setting of
// F that only serve uses.
func TestConfigFileThroughTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	file := writeConfigFile(t, "KGMEM_DATA_DIR="+dir, "KGMEM_RATE_LIMIT=lots")
	if err := run(t.Context(), []string{"keys", "create", "--name", "ci", "--prefix", "ci", "--config-file", file}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, keyStoreFile)); err != nil {
		t.Errorf("the key store is not in the file's data directory: %v", err)
	}
	if err := run(t.Context(), []string{"serve", "--config-file", file}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "KGMEM_RATE_LIMIT in ") {
		t.Errorf("serve with a malformed KGMEM_RATE_LIMIT in its file: %v", err)
	}
}
