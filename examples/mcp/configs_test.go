// The ready MCP client configurations of examples/mcp, and those the MCP
// guide shows, are tested as a host uses them: each file parses in its host's shape, and each server it names
// is started or reached exactly as configured — the stdio command launched
// from a binary built from this checkout, the HTTP URL on a running server
// with the configured header — and completes MCP's initialize and
// tools/list, then stores and recalls a memory.
package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/polltest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostConfig is an MCP host's configuration file: Claude Desktop and Cursor
// name their servers under mcpServers, VS Code under servers, with inputs
// it prompts for.
type hostConfig struct {
	MCPServers map[string]serverConfig `json:"mcpServers"`
	Servers    map[string]serverConfig `json:"servers"`
	Inputs     []struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		Description string `json:"description"`
		Password    bool   `json:"password"`
	} `json:"inputs"`
}

// serverConfig is one server of a host's file: a command it launches
// (stdio) or a URL it posts to (streamable HTTP).
type serverConfig struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// configs are the files and the host each is for; a file of examples/mcp
// missing here fails TestConfigsAreListed.
var configs = map[string]string{
	"claude_desktop_config.json": "claude",
	"cursor-stdio.json":          "cursor",
	"cursor-http.json":           "cursor",
	"vscode-stdio.json":          "vscode",
	"vscode-http.json":           "vscode",
}

func TestConfigsAreListed(t *testing.T) {
	files, err := filepath.Glob("*.json")
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, 0, len(configs))
	for f := range configs {
		want = append(want, f)
	}
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Fatalf("examples/mcp holds %v; the test knows %v", files, want)
	}
}

// adminKey is the test server's admin key (the server wants 32 characters
// or more).
const adminKey = "kgm_example_admin_key_0123456789abcdef"

func TestConfigs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and starts it")
	}
	home := t.TempDir()
	bin := filepath.Join(home, ".local", "bin", "kgmem")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/server").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := serverEnv(t)
	serverURL := startServe(t, bin, env)

	type source struct{ name, host string }
	raws := map[source][]byte{}
	for file, host := range configs {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		raws[source{file, host}] = raw
	}
	for i, raw := range guideConfigs(t) {
		host := "cursor" // Claude Desktop's and Cursor's files have one shape
		if bytes.Contains(raw, []byte(`"servers"`)) {
			host = "vscode"
		}
		raws[source{fmt.Sprintf("mcp.md block %d", i+1), host}] = raw
	}
	for src, raw := range raws {
		host := src.host
		t.Run(src.name, func(t *testing.T) {
			cfg := readConfig(t, raw, host)
			servers := cfg.MCPServers
			if host == "vscode" {
				servers = cfg.Servers
			}
			s, ok := servers["kgmem"]
			if !ok || len(servers) != 1 {
				t.Fatalf("want one server named kgmem, got %v", servers)
			}
			// What the host substitutes before it uses the configuration.
			inputs := map[string]bool{}
			for _, in := range cfg.Inputs {
				inputs[in.ID] = in.Type == "promptString" && in.Password
			}
			expand := func(v string) string {
				v = strings.ReplaceAll(v, "/home/me", home)
				v = strings.ReplaceAll(v, "${userHome}", home)
				v = strings.ReplaceAll(v, "${env:KGMEM_API_KEY}", adminKey)
				v = strings.ReplaceAll(v, "kgm_…", adminKey) // the guide's placeholder
				for id, secret := range inputs {
					if secret {
						v = strings.ReplaceAll(v, "${input:"+id+"}", adminKey)
					}
				}
				if left := regexp.MustCompile(`\$\{[^}]*\}`).FindString(v); left != "" {
					t.Fatalf("%q: %s is not a variable the host knows (inputs declared: %v)", v, left, inputs)
				}
				return v
			}
			var session *mcp.ClientSession
			switch {
			case s.Command != "" && s.URL == "":
				if host == "vscode" && s.Type != "stdio" {
					t.Fatalf("VS Code needs \"type\": \"stdio\", got %q", s.Type)
				}
				if filepath.Base(s.Command) != "kgmem" || len(s.Args) == 0 || s.Args[0] != "mcp" {
					t.Fatalf("want the kgmem binary's mcp command, got %s %v", s.Command, s.Args)
				}
				args := make([]string, len(s.Args))
				for i, a := range s.Args {
					args[i] = expand(a)
				}
				cmd := exec.Command(expand(s.Command), args...)
				cmd.Env = slices.Clone(env)
				for k, v := range s.Env {
					cmd.Env = append(cmd.Env, k+"="+expand(v))
				}
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				session = connect(t, &mcp.CommandTransport{Command: cmd}, &stderr)
			case s.URL != "" && s.Command == "":
				if host == "vscode" && s.Type != "http" {
					t.Fatalf("VS Code needs \"type\": \"http\", got %q", s.Type)
				}
				endpoint := strings.Replace(expand(s.URL), "http://127.0.0.1:8080", serverURL, 1)
				if endpoint != serverURL+"/mcp" {
					t.Fatalf("url %s: want the server's /mcp on 127.0.0.1:8080", s.URL)
				}
				headers := http.Header{}
				for k, v := range s.Headers {
					headers.Set(k, expand(v))
				}
				// The header is what lets the host in: without it the
				// server with keys refuses to initialize.
				if _, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
					&mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil); err == nil {
					t.Fatal("the server let a client without the configured header in")
				}
				session = connect(t, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1, DisableStandaloneSSE: true,
					HTTPClient: &http.Client{Transport: withHeaders{headers}}}, nil)
			default:
				t.Fatalf("a server needs a command or a url, not both: %+v", s)
			}
			useMemory(t, session, slices.Contains(s.Args, "--namespace"))
		})
	}
}

// serverEnv is the environment the configured commands run in: this one,
// without KGMEM_* settings that would point them elsewhere, with the hashing
// embedder (no model to load) and quiet logs.
func serverEnv(t *testing.T) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KGMEM_") {
			env = append(env, kv)
		}
	}
	return append(env, "KGMEM_EMBED_STATIC_MODEL="+filepath.Join(t.TempDir(), "none"), "KGMEM_LOG_LEVEL=error")
}

// startServe runs `kgmem serve` with an admin key on a free loopback port
// until the test ends and returns its URL once it is ready.
func startServe(t *testing.T, bin string, env []string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	cmd := exec.Command(bin, "serve", "--addr", addr, "--data-dir", t.TempDir(), "--ui=false")
	cmd.Env = append(slices.Clone(env), "KGMEM_ADMIN_KEY="+adminKey)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		<-exited
	})
	url := "http://" + addr
	polltest.Until(t, 60*time.Second, "kgmem serve to be ready", func() bool {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("kgmem serve exited: %v\n%s", err, log.String())
		default:
		}
		resp, err := http.Get(url + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return url
}

// guideConfigs are the configurations the MCP guide shows: its JSON blocks.
func guideConfigs(t *testing.T) [][]byte {
	t.Helper()
	raw, err := os.ReadFile("../../docs/guides/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(raw, -1) {
		out = append(out, m[1])
	}
	if len(out) < 4 {
		t.Fatalf("docs/guides/mcp.md shows %d configurations, want its ready ones", len(out))
	}
	return out
}

// readConfig parses a host's file strictly: a member its host does not
// know is a typo.
func readConfig(t *testing.T, raw []byte, host string) hostConfig {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var cfg hostConfig
	if err := dec.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	switch {
	case host == "vscode" && (cfg.Servers == nil || cfg.MCPServers != nil):
		t.Fatalf("VS Code's mcp.json names its servers under \"servers\"")
	case host != "vscode" && (cfg.MCPServers == nil || cfg.Servers != nil || cfg.Inputs != nil):
		t.Fatalf("%s's file names its servers under \"mcpServers\" and has no inputs", host)
	}
	return cfg
}

// connect initializes an MCP session over transport; stderr, when set, is
// the launched command's, shown if it fails.
func connect(t *testing.T, transport mcp.Transport, stderr *bytes.Buffer) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		if stderr != nil {
			t.Fatalf("initialize: %v\n%s", err, stderr.String())
		}
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if got := s.InitializeResult().ServerInfo.Name; got != "kgmem" {
		t.Errorf("server name %q, want kgmem", got)
	}
	return s
}

// useMemory lists the tools, stores a memory and finds it again; with a
// configured --namespace the tools take none.
func useMemory(t *testing.T, s *mcp.ClientSession, fixedNamespace bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"add_memories", "search_memory", "add_facts", "get_entity"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list has no %s: %v", want, names)
		}
	}
	args := func(m map[string]any) map[string]any {
		if !fixedNamespace {
			m["namespace"] = "me/assistant"
		}
		return m
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "add_memories", Arguments: args(map[string]any{"text": "My cat Miso is afraid of the vacuum cleaner.", "speaker": "me"})})
	if err != nil || res.IsError {
		t.Fatalf("add_memories: %v %s", err, text(res))
	}
	res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "search_memory", Arguments: args(map[string]any{"query": "What is Miso afraid of?"})})
	if err != nil || res.IsError {
		t.Fatalf("search_memory: %v %s", err, text(res))
	}
	if got := text(res); !strings.Contains(got, "Miso is afraid of the vacuum cleaner") {
		t.Errorf("search_memory answered %q", got)
	}
}

// text is a tool result's text content.
func text(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// withHeaders adds a host's configured headers to every request.
type withHeaders struct{ h http.Header }

func (w withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range w.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}
