package importer_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kgmem/kgmem/chatlog"
	"github.com/kgmem/kgmem/chatlog/gen"
	"github.com/kgmem/kgmem/chatlog/gen/gentest"
	"github.com/kgmem/kgmem/chatlog/importer"
	"github.com/kgmem/kgmem/internal/llmtest"
)

// TestIngestThroughputFigures measures the ingestion figures on the
// embedded backends, in-process (the same path as `server ingest` without
// --url): a generated 100,000-message JSONL with extraction off and with the
// scripted LLM at zero latency, and 2,000 messages with a simulated 500 ms
// LLM at concurrency 1, 4 and 16. Minutes long, so behind a flag:
//
//	KGMEM_INGEST_BENCH=1 go test -run TestIngestThroughputFigures -v -timeout 30m ./chatlog/importer/
//
// KGMEM_INGEST_BENCH_MESSAGES overrides the 100,000; one case runs with
// -run 'TestIngestThroughputFigures/0_ms' (the cases are subtests).
func TestIngestThroughputFigures(t *testing.T) {
	if os.Getenv("KGMEM_INGEST_BENCH") == "" {
		t.Skip("set KGMEM_INGEST_BENCH=1 to measure ingestion throughput (minutes)")
	}
	n := 100000
	if v := os.Getenv("KGMEM_INGEST_BENCH_MESSAGES"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil {
			t.Fatal(err)
		}
	}
	big := generate(t, gen.Config{Messages: n, Seed: 1})
	small := generate(t, gen.Config{Messages: 2000, MessagesPerThread: 50, Seed: 2})
	cases := []struct {
		name        string
		data        []byte
		llm         *llmtest.Server
		concurrency int
		batch       int
	}{
		{"extraction off, batch 50", big, nil, 4, 50},
		{"extraction off, batch 500", big, nil, 4, 500},
		{"scripted LLM, 0 ms", big, gentest.LLM(t, 0), 4, 50},
		{"scripted LLM, 500 ms, concurrency 1", small, gentest.LLM(t, 500*time.Millisecond), 1, 50},
		{"scripted LLM, 500 ms, concurrency 4", small, gentest.LLM(t, 500*time.Millisecond), 4, 50},
		{"scripted LLM, 500 ms, concurrency 16", small, gentest.LLM(t, 500*time.Millisecond), 16, 50},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eng, _ := gentest.Engine(t, t.TempDir(), tc.llm)
			r, err := chatlog.Open(bytes.NewReader(tc.data), chatlog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			im, err := importer.New(importer.Config{Sink: eng, Concurrency: tc.concurrency, Batch: tc.batch, Extract: tc.llm != nil})
			if err != nil {
				t.Fatal(err)
			}
			s, err := im.Run(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if s.Created != s.Read || s.Failed != 0 || s.Bad != 0 {
				t.Fatalf("%s: %+v", tc.name, s.Stats)
			}
			t.Logf("%-40s %7d msgs in %6.1f s = %7.0f msg/s; %6d facts, %5d LLM calls, %d batches with warnings",
				tc.name, s.Sent, s.ElapsedSeconds, s.MessagesPerSec, s.Facts, s.LLMCalls, s.Warnings)
		})
	}
}

func generate(t *testing.T, cfg gen.Config) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gen.Write(&buf, cfg); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
