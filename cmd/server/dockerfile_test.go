package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// dockerfile is what the image's documentation and entrypoint say: the
// ENV of the image, the CMD, and the environment the documented
// `docker run` passes (-e NAME, with NAME exported on the line before).
type dockerfile struct {
	env    map[string]string
	cmd    []string
	runEnv map[string]string
}

func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	raw, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), "\\\n", " ")
	d := dockerfile{env: map[string]string{}, runEnv: map[string]string{}}
	exported := map[string]string{}
	sawRun := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "ENV "):
			for _, kv := range strings.Fields(strings.TrimPrefix(line, "ENV ")) {
				k, v, _ := strings.Cut(kv, "=")
				d.env[k] = v
			}
		case strings.HasPrefix(line, "CMD "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "CMD ")), &d.cmd); err != nil {
				t.Fatalf("CMD: %v", err)
			}
		case strings.HasPrefix(line, "#   export "):
			k, v, _ := strings.Cut(strings.TrimPrefix(line, "#   export "), "=")
			if v == `"$(openssl rand -hex 32)"` {
				b := make([]byte, 32)
				_, _ = rand.Read(b)
				v = hex.EncodeToString(b)
			}
			exported[k] = v
		case strings.HasPrefix(line, "#   docker run "):
			sawRun = true
			for _, m := range regexp.MustCompile(`-e (\w+)(?:=(\S+))?`).FindAllStringSubmatch(line, -1) {
				if m[2] != "" {
					d.runEnv[m[1]] = m[2]
				} else {
					d.runEnv[m[1]] = exported[m[1]]
				}
			}
		}
	}
	if !sawRun || d.env["KGMEM_ADDR"] == "" || len(d.cmd) == 0 {
		t.Fatalf("the Dockerfile documents no docker run, or sets no KGMEM_ADDR or CMD: %+v", d)
	}
	return d
}

// The image's documented `docker run` starts: the entrypoint's command and
// environment (0.0.0.0, as in a container) with what the example passes,
// and the server answers keyed requests. Without the example's key it
// refuses to start open on a non-loopback address, and says how.
func TestDockerfileExampleStarts(t *testing.T) {
	d := readDockerfile(t)
	if d.runEnv[adminKeyVar] == "" {
		t.Fatalf("the documented docker run passes no %s: %+v", adminKeyVar, d.runEnv)
	}
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(free.Addr().String())
	_ = free.Close()
	host, _, err := net.SplitHostPort(d.env["KGMEM_ADDR"])
	if err != nil || !net.ParseIP(host).IsUnspecified() {
		t.Fatalf("KGMEM_ADDR %q: the image should listen on every interface", d.env["KGMEM_ADDR"])
	}
	for k, v := range d.env {
		t.Setenv(k, v)
	}
	t.Setenv("KGMEM_ADDR", net.JoinHostPort(host, port))
	t.Setenv("KGMEM_DATA_DIR", t.TempDir())
	t.Setenv("KGMEM_LOG_LEVEL", "error")
	t.Setenv(adminKeyVar, "")

	// As before the fix: no key, refused.
	err = run(context.Background(), d.cmd, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), adminKeyVar) {
		t.Fatalf("without a key: %v, want a refusal naming %s", err, adminKeyVar)
	}

	for k, v := range d.runEnv {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, d.cmd, io.Discard, io.Discard) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	base := "http://127.0.0.1:" + port
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the documented example did not start: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not answer: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // polling interval under the deadline above
	}
	for _, tc := range []struct {
		name, key string
		want      int
	}{
		{"no key", "", http.StatusUnauthorized},
		{"the admin key", d.runEnv[adminKeyVar], http.StatusOK},
	} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/namespaces", nil)
		if tc.key != "" {
			req.Header.Set("Authorization", "Bearer "+tc.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
}
