// Tests of scripts/neo4j.sh and scripts/milvus.sh: two instances of each on
// ports of their own, side by side, each managed apart from the other. They
// start real servers (minutes of CPU), so they run only with
// KGMEM_TEST_SERVICE_SCRIPTS=1:
//
//	KGMEM_TEST_SERVICE_SCRIPTS=1 go test ./scripts -run Script -v
//
// The ports (Neo4j bolt 17687 and 17688, HTTP 17474 and 17475; Milvus 29530
// and 29560, each with the ten ports above it) must be free; the default
// instances (7687, 7474, 19530) are never touched.
package scripts_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const gateVar = "KGMEM_TEST_SERVICE_SCRIPTS"

// script runs scripts/<name> with args and extra environment and returns its
// stdout, stderr and exit code.
func script(t *testing.T, env []string, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{name}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code = 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errOut.String(), code
}

// must runs a script that has to succeed.
func must(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	out, errOut, code := script(t, env, name, args...)
	if code != 0 {
		t.Fatalf("%s %s %v: exit %d\n%s", strings.Join(env, " "), name, args, code, errOut)
	}
	return out
}

func servicesDir(t *testing.T) string {
	if d := os.Getenv("KGMEM_SERVICES_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(home, ".cache", "kgmem")
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf("pid file %s: %v", path, err)
	}
	return pid
}

// inParallel runs f for each instance at once and waits for all.
func inParallel[T any](items []T, f func(T)) {
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(it)
		}()
	}
	wg.Wait()
}

func gate(t *testing.T) {
	if os.Getenv(gateVar) != "1" {
		t.Skip("starts real Neo4j and Milvus servers: set " + gateVar + "=1")
	}
}

func TestNeo4jScriptPerPort(t *testing.T) {
	gate(t)
	type instance struct {
		bolt, http string
		env        []string
	}
	var insts []instance
	for _, p := range [][2]string{{"17687", "17474"}, {"17688", "17475"}} {
		insts = append(insts, instance{p[0], p[1], []string{"KGMEM_NEO4J_BOLT_PORT=" + p[0], "KGMEM_NEO4J_HTTP_PORT=" + p[1], "KGMEM_NEO4J_HEAP=512m", "KGMEM_NEO4J_PAGECACHE=128m"}})
	}
	for _, in := range insts {
		t.Cleanup(func() { script(t, in.env, "neo4j.sh", "stop") })
	}
	inParallel(insts, func(in instance) {
		if out, errOut, code := script(t, in.env, "neo4j.sh", "start"); code != 0 || strings.TrimSpace(out) != "bolt://127.0.0.1:"+in.bolt {
			t.Errorf("start on bolt %s: exit %d, printed %q\n%s", in.bolt, code, out, errOut)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	base := filepath.Join(servicesDir(t), "neo4j")
	pid := func(in instance) int { return readPid(t, filepath.Join(base, "bolt-"+in.bolt, "neo4j.pid")) }
	a, b := insts[0], insts[1]
	if pid(a) == pid(b) {
		t.Fatalf("both instances have pid %d", pid(a))
	}
	for _, in := range insts {
		// The Bolt port alone names an instance; its HTTP port is read from it.
		out := must(t, []string{"KGMEM_NEO4J_BOLT_PORT=" + in.bolt}, "neo4j.sh", "status")
		if !strings.Contains(out, "bolt://127.0.0.1:"+in.bolt) || !strings.Contains(out, "http://127.0.0.1:"+in.http+"/") {
			t.Errorf("status of bolt %s: %q", in.bolt, out)
		}
	}

	t.Run("a second start reuses the instance", func(t *testing.T) {
		before := pid(a)
		must(t, a.env, "neo4j.sh", "start")
		if got := pid(a); got != before {
			t.Errorf("pid %d after a second start, want %d", got, before)
		}
	})
	t.Run("a port held by another instance is refused", func(t *testing.T) {
		_, errOut, code := script(t, []string{"KGMEM_NEO4J_BOLT_PORT=17689", "KGMEM_NEO4J_HTTP_PORT=" + a.http}, "neo4j.sh", "start")
		if code == 0 || !strings.Contains(errOut, "port "+a.http) {
			t.Errorf("start on bolt 17689 with http %s: exit %d, %s", a.http, code, errOut)
		}
		if _, _, code := script(t, []string{"KGMEM_NEO4J_BOLT_PORT=17689"}, "neo4j.sh", "status"); code != 3 {
			t.Errorf("status of bolt 17689: exit %d, want 3 (stopped)", code)
		}
	})
	t.Run("stop stops only its instance", func(t *testing.T) {
		must(t, a.env, "neo4j.sh", "stop")
		if _, _, code := script(t, a.env, "neo4j.sh", "status"); code != 3 {
			t.Errorf("status of bolt %s after its stop: exit %d, want 3", a.bolt, code)
		}
		must(t, b.env, "neo4j.sh", "status")
	})
}

func TestMilvusScriptPerPort(t *testing.T) {
	gate(t)
	ports := []string{"29530", "29560"}
	env := func(p string) []string { return []string{"KGMEM_MILVUS_PORT=" + p} }
	for _, p := range ports {
		t.Cleanup(func() { script(t, env(p), "milvus.sh", "stop") })
	}
	inParallel(ports, func(p string) {
		if out, errOut, code := script(t, env(p), "milvus.sh", "start"); code != 0 || strings.TrimSpace(out) != "127.0.0.1:"+p {
			t.Errorf("start on %s: exit %d, printed %q\n%s", p, code, out, errOut)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	base := filepath.Join(servicesDir(t), "milvus")
	pid := func(p string) int { return readPid(t, filepath.Join(base, "port-"+p, "milvus.pid")) }
	for _, p := range ports {
		if out := must(t, env(p), "milvus.sh", "status"); strings.TrimSpace(out) != "127.0.0.1:"+p {
			t.Errorf("status of %s printed %q", p, out)
		}
	}
	if pid(ports[0]) == pid(ports[1]) {
		t.Fatalf("both instances have pid %d", pid(ports[0]))
	}

	t.Run("a second start reuses the instance", func(t *testing.T) {
		before := pid(ports[0])
		must(t, env(ports[0]), "milvus.sh", "start")
		if got := pid(ports[0]); got != before {
			t.Errorf("pid %d after a second start, want %d", got, before)
		}
	})
	t.Run("a config left by a run on another port is not read", func(t *testing.T) {
		must(t, env(ports[0]), "milvus.sh", "stop")
		cfg := filepath.Join(base, "port-"+ports[0], "data", "configs", "milvus.yaml")
		raw, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		stale := strings.Replace(string(raw), "  port: "+ports[0], "  port: 39531", 1)
		if stale == string(raw) {
			t.Fatalf("%s has no proxy port %s", cfg, ports[0])
		}
		if err := os.WriteFile(cfg, []byte(stale), 0o644); err != nil {
			t.Fatal(err)
		}
		if out := must(t, env(ports[0]), "milvus.sh", "start"); strings.TrimSpace(out) != "127.0.0.1:"+ports[0] {
			t.Errorf("restart printed %q", out)
		}
	})
	t.Run("stop stops only its instance", func(t *testing.T) {
		must(t, env(ports[0]), "milvus.sh", "stop")
		if _, _, code := script(t, env(ports[0]), "milvus.sh", "status"); code != 3 {
			t.Errorf("status of %s after its stop: exit %d, want 3", ports[0], code)
		}
		must(t, env(ports[1]), "milvus.sh", "status")
	})
}
