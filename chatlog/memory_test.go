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

// TestStreamsInBoundedMemory reads 65–75 MB inputs of each streaming format and
// checks the heap never holds more than a small fraction of them.
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
			runtime.GC()
			r, err := chatlog.Open(tc.input, chatlog.Options{Namespace: "u"})
			if err != nil {
				t.Fatal(err)
			}
			var ms runtime.MemStats
			peak := uint64(0)
			n := 0
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				n++
				if n%5000 == 0 {
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
				}
			}
			if n != tc.want {
				t.Fatalf("%d records, want %d", n, tc.want)
			}
			// The inputs are 65–75 MB; a reader holding them would show it.
			if peak > 24<<20 {
				t.Errorf("heap in use peaked at %d MB reading a 65–75 MB input", peak>>20)
			}
			t.Logf("%d records, heap in use peaked at %.1f MB", n, float64(peak)/(1<<20))
		})
	}
}
