package api_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem/api"
)

// TestLimits checks every per-request limit the README documents: each is a
// 4xx naming the field, and nothing is stored.
func TestLimits(t *testing.T) {
	s := newTestServer(t, backends(t)[0], api.Options{MaxBodyBytes: 1 << 20}, nil)
	msgs := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"id":"m%d","content":"x"}`, i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	facts := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"subject":"a%d","predicate":"likes","object":"b"}`, i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	tests := []struct {
		name, method, path, body string
		status                   int
		field                    string
	}{
		{"1,001 messages", "POST", "/v1/memories", `{"namespace":"lim","messages":` + msgs(1001) + `}`, 400, "messages"},
		{"1,001 facts", "POST", "/v1/facts", `{"namespace":"lim","facts":` + facts(1001) + `}`, 400, "facts"},
		{"content over 32 KiB", "POST", "/v1/memories", `{"namespace":"lim","messages":[{"content":"` + strings.Repeat("a", 32<<10+1) + `"}]}`, 400, "messages[0].content"},
		{"query over 4 KiB", "POST", "/v1/search", `{"namespace":"lim","query":"` + strings.Repeat("q ", 2049) + `"}`, 400, "query"},
		{"search limit 101", "POST", "/v1/search", `{"namespace":"lim","query":"q","limit":101}`, 400, "limit"},
		{"facts page 1,001", "GET", "/v1/facts?namespace=lim&limit=1001", "", 400, "limit"},
		{"entities page 1,001", "GET", "/v1/entities?namespace=lim&limit=1001", "", 400, "limit"},
		{"body over --max-body-bytes", "POST", "/v1/memories", `{"namespace":"lim","messages":[{"content":"` + strings.Repeat("a", 1<<20) + `"}]}`, 413, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p api.Problem
			st, _ := s.do(tt.method, tt.path, "application/json", []byte(tt.body), &p)
			if st != tt.status || p.Field != tt.field {
				t.Fatalf("status %d field %q (%s), want %d %q", st, p.Field, p.Detail, tt.status, tt.field)
			}
		})
	}
	if eps, fs, ents := s.counts("lim"); eps+fs+ents != 0 {
		t.Errorf("refused requests stored %d episodes, %d facts, %d entities", eps, fs, ents)
	}
	// At the limits themselves, the requests pass.
	if st, _ := s.do("POST", "/v1/memories", "application/json", []byte(`{"namespace":"lim","messages":`+msgs(1000)+`}`), nil); st != 201 {
		t.Errorf("1,000 messages: %d, want 201", st)
	}
	if st, _ := s.do("GET", "/v1/facts?namespace=lim&limit=1000", "", nil, nil); st != 200 {
		t.Errorf("page of 1,000: %d, want 200", st)
	}
}

// TestServerTimeouts: the connection timeouts in Options reach the HTTP
// server — a client that sends half its headers is cut off after
// ReadHeaderTimeout, an idle keep-alive connection after IdleTimeout.
func TestServerTimeouts(t *testing.T) {
	srv := api.New(nil, api.Options{ReadHeaderTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond}, slog.New(slog.DiscardHandler))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, time.Second) }()
	defer func() {
		cancel()
		<-done
	}()
	for _, tt := range []struct {
		name, send string
	}{
		{"slow headers", "GET /healthz HTTP/1.1\r\nHost: x\r\n"},
		{"idle keep-alive", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tt.send); err != nil {
				t.Fatal(err)
			}
			// The server must close the connection well before our own 5 s deadline.
			start := time.Now()
			_ = conn.SetReadDeadline(start.Add(5 * time.Second))
			_, err = io.Copy(io.Discard, conn)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the server kept the connection open for %s", time.Since(start))
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Fatalf("closed after %s, want about 300 ms", took)
			}
		})
	}
	if resp, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("a normal request: %v", err)
	} else {
		resp.Body.Close()
	}
}
