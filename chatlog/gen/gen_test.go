package gen_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/kgmem/kgmem/chatlog"
	"github.com/kgmem/kgmem/chatlog/gen"
)

func TestWriteIsSeededAndReadable(t *testing.T) {
	var a, b, c bytes.Buffer
	cfg := gen.Config{Messages: 250, Namespaces: 3, MessagesPerThread: 50, Seed: 7}
	for _, w := range []*bytes.Buffer{&a, &b} {
		if err := gen.Write(w, cfg); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Seed = 8
	if err := gen.Write(&c, cfg); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) || bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Fatal("same seed must give the same bytes, another seed other bytes")
	}
	r, err := chatlog.Open(&a, chatlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	threads := map[string]int{}
	n := 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		threads[string(rec.Namespace)+"/"+rec.ThreadID]++
		if !gen.FactPattern.MatchString(rec.Message.Content) {
			t.Errorf("line %d %q does not match FactPattern", rec.Pos.Line, rec.Message.Content)
		}
	}
	if n != 250 || len(threads) != 5 || r.Format() != chatlog.FormatJSONL {
		t.Errorf("%d records in %d threads as %s, want 250 in 5 as jsonl", n, len(threads), r.Format())
	}
}
