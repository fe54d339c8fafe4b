package importer_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/chatlog"
	"github.com/kgmem/kgmem/chatlog/gen"
	"github.com/kgmem/kgmem/chatlog/gen/gentest"
	"github.com/kgmem/kgmem/chatlog/importer"
	"github.com/kgmem/kgmem/internal/polltest"
)

// input is a generated log with two bad lines spliced in (lines 3 and 8).
func input(t *testing.T, messages int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Config{Messages: messages, Namespaces: 3, MessagesPerThread: 20, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(buf.String(), "\n")
	out := append([]string{}, lines[:2]...)
	out = append(out, "{not json\n")
	out = append(out, lines[2:6]...)
	out = append(out, `{"namespace": "gen/ns0", "thread_id": "x", "content": ""}`+"\n")
	out = append(out, lines[6:]...)
	return []byte(strings.Join(out, ""))
}

func run(t *testing.T, cfg importer.Config, data []byte) importer.Summary {
	t.Helper()
	r, err := chatlog.Open(bytes.NewReader(data), chatlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	im, err := importer.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := im.Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestImportResumesAndIsIdempotent(t *testing.T) {
	eng, _ := gentest.Engine(t, t.TempDir(), nil)
	data := input(t, 400)
	ckPath := filepath.Join(t.TempDir(), "ck")
	cases := []struct {
		name       string
		checkpoint string
		want       importer.Stats
	}{
		{"first run stores everything", ckPath, importer.Stats{Read: 400, Bad: 2, Sent: 400, Created: 400}},
		{"second run resumes past everything", ckPath, importer.Stats{Read: 400, Resumed: 400, Bad: 2}},
		{"without checkpoint the server recognises every message", "", importer.Stats{Read: 400, Bad: 2, Sent: 400, Existing: 400}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ck, err := importer.LoadCheckpoint(tc.checkpoint)
			if err != nil {
				t.Fatal(err)
			}
			var errs bytes.Buffer
			s := run(t, importer.Config{Sink: eng, Concurrency: 3, Batch: 7, Checkpoint: ck, Errors: &errs}, data)
			got := s.Stats
			got.Batches = 0
			if got != tc.want {
				t.Errorf("stats %+v, want %+v", got, tc.want)
			}
			var lines []int
			sc := bufio.NewScanner(&errs)
			for sc.Scan() {
				var e struct {
					Line  int    `json:"line"`
					Error string `json:"error"`
				}
				if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Error == "" {
					t.Fatalf("errors line %q: %v", sc.Text(), err)
				}
				lines = append(lines, e.Line)
			}
			if len(lines) != 2 || lines[0] != 3 || lines[1] != 8 {
				t.Errorf("errors file names lines %v, want [3 8]", lines)
			}
		})
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	s := run(t, importer.Config{DryRun: true}, input(t, 100))
	if s.Sent != 100 || s.Bad != 2 || len(s.Namespaces) != 3 || s.Namespaces["gen/ns0"]["thread-0"] != 20 {
		t.Errorf("dry run summary %+v", s)
	}
}

// TestHTTPSinkBacksOffOn429 answers the first two posts with 429 and a
// Retry-After; the import retries and stores everything.
func TestHTTPSinkBacksOffOn429(t *testing.T) {
	eng, _ := gentest.Engine(t, t.TempDir(), nil)
	h := api.New(eng, api.Options{}, slog.New(slog.DiscardHandler)).Handler()
	var refused atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refused.Add(1) <= 2 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"title": "Too Many Requests", "status": 429, "detail": "slow down"}`, http.StatusTooManyRequests)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	sink, err := importer.NewHTTPSink(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	s := run(t, importer.Config{Sink: sink, Concurrency: 1, Batch: 50}, input(t, 100))
	if s.Created != 100 || s.Failed != 0 || sink.Retries() != 2 {
		t.Errorf("created %d, failed %d, retries %d; want 100, 0, 2", s.Created, s.Failed, sink.Retries())
	}
}

// TestRequestsPerMinute paces extraction batches: at 120 requests per
// minute (2/s, burst 2), 8 batches take at least 3 s.
func TestRequestsPerMinute(t *testing.T) {
	llm := gentest.LLM(t, 0)
	eng, _ := gentest.Engine(t, t.TempDir(), llm)
	start := time.Now()
	s := run(t, importer.Config{Sink: eng, Concurrency: 4, Batch: 10, Extract: true, RPM: 120}, input(t, 80))
	if took := time.Since(start); took < 2900*time.Millisecond || s.Batches != 8 {
		t.Errorf("%d batches in %v; want 8 in at least 3s", s.Batches, took)
	}
	if s.Facts == 0 || s.LLMCalls < 8 {
		t.Errorf("summary %+v: want facts and at least 8 LLM calls", s.Stats)
	}
}

// TestFailedBatchStopsItsThread rejects every batch of one thread: that
// thread stops (its later batches are not sent), its checkpoint stays at 0 so
// the next run retries it, and the other threads are stored.
func TestFailedBatchStopsItsThread(t *testing.T) {
	eng, _ := gentest.Engine(t, t.TempDir(), nil)
	h := api.New(eng, api.Options{}, slog.New(slog.DiscardHandler)).Handler()
	var rejected atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"thread_id":"thread-1"`)) {
			rejected.Add(1)
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"status": 400, "detail": "no", "field": "thread_id"}`))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	sink, err := importer.NewHTTPSink(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	ck, err := importer.LoadCheckpoint(filepath.Join(t.TempDir(), "ck"))
	if err != nil {
		t.Fatal(err)
	}
	var errs bytes.Buffer
	s := run(t, importer.Config{Sink: sink, Concurrency: 2, Batch: 7, Checkpoint: ck, Errors: &errs}, input(t, 100))
	if s.Created != 80 || s.Failed != 20 || rejected.Load() != 1 {
		t.Errorf("created %d, failed %d, rejected posts %d; want 80, 20, 1", s.Created, s.Failed, rejected.Load())
	}
	if got := ck.Done("gen/ns1", "thread-1"); got != 0 {
		t.Errorf("checkpoint of the failed thread at %d, want 0", got)
	}
	if got := ck.Done("gen/ns2", "thread-2"); got != 20 {
		t.Errorf("checkpoint of a good thread at %d, want 20", got)
	}
	if n := strings.Count(errs.String(), "batch failed"); n != 7 {
		t.Errorf("%d messages reported as failed in the errors file, want the 7 of the rejected batch", n)
	}
}

// TestHTTPSinkRidesOutARestart imports through a server that dies twice: once
// after storing a batch but before answering it, and once for good, its
// listener closed (connections refused) until a new server takes the same
// address. Every batch is retried until it is answered: no batch fails, and
// the graph holds every message exactly once (the batch whose answer was
// lost is answered "existing" the second time).
func TestHTTPSinkRidesOutARestart(t *testing.T) {
	eng, g := gentest.Engine(t, t.TempDir(), nil)
	h := api.New(eng, api.Options{}, slog.New(slog.DiscardHandler)).Handler()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	var posts atomic.Int64
	dying := make(chan struct{})
	// dropConn ends a request without an answer, as a killed server does.
	dropConn := func(w http.ResponseWriter) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		_ = conn.Close()
	}
	first := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch posts.Add(1) {
		case 3: // stored, then the process dies before answering
			h.ServeHTTP(httptest.NewRecorder(), r)
			dropConn(w)
		case 6: // the process goes away for a while
			dropConn(w)
			close(dying)
		default:
			h.ServeHTTP(w, r)
		}
	})}
	go func() { _ = first.Serve(ln) }()
	t.Cleanup(func() { _ = first.Close() })

	sink, err := importer.NewHTTPSink("http://"+addr, "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := chatlog.Open(bytes.NewReader(input(t, 400)), chatlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	im, err := importer.New(importer.Config{Sink: sink, Concurrency: 2, Batch: 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // fails only if it hangs
	defer cancel()
	type outcome struct {
		s   importer.Summary
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		s, err := im.Run(ctx, r)
		done <- outcome{s, err}
	}()

	select {
	case <-dying:
	case <-ctx.Done():
		t.Fatal("the import never reached its sixth post")
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	// Connections are refused now: wait until the sink has met that twice.
	before := sink.Retries()
	polltest.Until(t, time.Minute, "the sink retrying a refused connection", func() bool { return sink.Retries() >= before+2 })
	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen again on %s: %v", addr, err)
	}
	second := &http.Server{Handler: h}
	go func() { _ = second.Serve(ln2) }()
	t.Cleanup(func() { _ = second.Close() })

	var got outcome
	select {
	case got = <-done:
	case <-ctx.Done():
		t.Fatal("the import did not finish after the server came back")
	}
	if got.err != nil {
		t.Fatalf("Run: %v", got.err)
	}
	s := got.s
	if s.Failed != 0 || s.Sent != 400 || s.Created != 390 || s.Existing != 10 {
		t.Errorf("stats %+v: want 400 sent, none failed, 390 created and the 10 of the batch whose answer was lost existing", s.Stats)
	}
	total := 0
	for _, ns := range []kgmem.Namespace{"gen/ns0", "gen/ns1", "gen/ns2"} {
		seen := map[string]bool{}
		for page := (kgmem.Page{Limit: 100}); ; {
			eps, err := g.ListEpisodes(context.Background(), ns, page)
			if err != nil {
				t.Fatal(err)
			}
			for _, ep := range eps {
				key := ep.ThreadID + "/" + ep.MessageID
				if seen[key] {
					t.Errorf("%s: message %s stored twice", ns, key)
				}
				seen[key] = true
			}
			if len(eps) < page.Limit {
				break
			}
			page.After = eps[len(eps)-1].ID
		}
		total += len(seen)
	}
	if total != 400 {
		t.Errorf("the graph holds %d messages, want 400", total)
	}
}
