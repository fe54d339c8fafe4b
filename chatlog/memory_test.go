package chatlog_test

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/chatlog"
)

// generated is an io.Reader producing head, then n copies of item(i)
// separated by sep, then tail, without ever holding the whole input.
type generated struct {
	head, sep, tail string
	n, i            int
	item            func(i int) string
	buf             strings.Reader
	done            bool
}

func (g *generated) Read(p []byte) (int, error) {
	for g.buf.Len() == 0 {
		switch {
		case g.done:
			return 0, io.EOF
		case g.i == 0 && g.head != "":
			g.buf.Reset(g.head)
			g.head = ""
		case g.i < g.n:
			s := g.item(g.i)
			if g.i > 0 {
				s = g.sep + s
			}
			g.i++
			g.buf.Reset(s)
		default:
			g.buf.Reset(g.tail)
			g.done = true
		}
	}
	return g.buf.Read(p)
}

// TestStreamsInBoundedMemory reads 60–75 MB inputs of each streaming format and
// checks that what the reader keeps does not grow with its input: the live
// heap, measured after a forced collection every 10,000 records, stays within
// a small fraction of the input over the live heap before the reader opened.
// Measuring live bytes rather than the heap in use leaves out the garbage a
// collector running late on a loaded machine has not freed yet (that peak
// ranged from 4.5 to over 25 MB on the same code). The measure itself is
// checked: a consumer that keeps every record must exceed the bound.
func TestStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 65–75 MB inputs")
	}
	filler := strings.Repeat("lorem ipsum ", 40)
	cases := []struct {
		name  string
		input *generated
		want  int
	}{
		{"jsonl", &generated{sep: "\n", n: 120000, item: func(i int) string {
			return fmt.Sprintf(`{"namespace": "u", "thread_id": "t%d", "id": "m%d", "content": "%d %s"}`, i%100, i, i, filler)
		}}, 120000},
		{"chatgpt", &generated{head: "[", sep: ",", tail: "]", n: 12000, item: func(i int) string {
			var nodes []string
			for k := range 10 {
				parent := "null"
				if k > 0 {
					parent = fmt.Sprintf(`"n%d"`, k-1)
				}
				nodes = append(nodes, fmt.Sprintf(`"n%d": {"id": "n%d", "parent": %s, "message": {"id": "c%d-n%d", "author": {"role": "user"}, "create_time": 1700000000, "content": {"content_type": "text", "parts": ["%s"]}}}`, k, k, parent, i, k, filler))
			}
			return fmt.Sprintf(`{"conversation_id": "c%d", "current_node": "n9", "mapping": {%s}}`, i, strings.Join(nodes, ","))
		}}, 120000},
		{"openai", &generated{head: "[", sep: ",", tail: "]", n: 12000, item: func(i int) string {
			var msgs []string
			for k := range 10 {
				msgs = append(msgs, fmt.Sprintf(`{"role": "user", "content": "%d %s"}`, k, filler))
			}
			return fmt.Sprintf(`{"id": "c%d", "messages": [%s]}`, i, strings.Join(msgs, ","))
		}}, 120000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, grew, read := liveGrowth(t, tc.input, false)
			if n != tc.want {
				t.Fatalf("%d records, want %d", n, tc.want)
			}
			t.Logf("%d records from %.1f MB: live heap grew at most %.2f MB", n, float64(read)/(1<<20), float64(grew)/(1<<20))
			if read < 50<<20 {
				t.Fatalf("read %d bytes, want a 60–75 MB input", read)
			}
			// A reader holding its input would keep tens of MB.
			if grew > read/16 {
				t.Errorf("live heap grew by %.1f MB reading a %.1f MB input; bound %.1f MB", float64(grew)/(1<<20), float64(read)/(1<<20), float64(read/16)/(1<<20))
			}
		})
	}
	t.Run("keeping every record exceeds the bound", func(t *testing.T) {
		in := cases[0].input
		in.i, in.done = 0, false
		_, grew, read := liveGrowth(t, in, true)
		t.Logf("keeping every record: live heap grew %.1f MB from a %.1f MB input", float64(grew)/(1<<20), float64(read)/(1<<20))
		if grew <= read/16 {
			t.Errorf("a consumer keeping every record grew the live heap by only %.1f MB of a %.1f MB input: the measure misses retention", float64(grew)/(1<<20), float64(read)/(1<<20))
		}
	})
}

// counted counts the bytes read through it.
type counted struct {
	r io.Reader
	n int64
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// liveGrowth reads every record of in and returns the count, the largest
// growth of the live heap (measured after a forced collection before opening
// and every 10,000 records) and the input's size. With keep, the records are
// kept, as a leaking reader would.
func liveGrowth(t *testing.T, in io.Reader, keep bool) (n int, grew uint64, read uint64) {
	t.Helper()
	live := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	src := &counted{r: in}
	base := live()
	r, err := chatlog.Open(src, chatlog.Options{Namespace: "u"})
	if err != nil {
		t.Fatal(err)
	}
	var kept []chatlog.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if keep {
			kept = append(kept, rec)
		}
		n++
		if n%10000 == 0 {
			if l := live(); l > base {
				grew = max(grew, l-base)
			}
		}
	}
	runtime.KeepAlive(kept)
	return n, grew, uint64(src.n)
}
