package journal_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kgmem/kgmem/internal/journal"
)

type entry struct {
	N    int    `json:"n"`
	Name string `json:"name"`
}

func valid(e entry) bool { return e.Name != "" }

func TestOpenSkipsTornAndInvalidLines(t *testing.T) {
	tests := []struct {
		name        string
		content     string
		want        []int
		wantSkipped int
	}{
		{"missing file", "", nil, 0},
		{"good lines", `{"n":1,"name":"a"}` + "\n" + `{"n":2,"name":"b"}` + "\n", []int{1, 2}, 0},
		{"torn last line", `{"n":1,"name":"a"}` + "\n" + `{"n":2,"na`, []int{1}, 1},
		{"invalid entry", `{"n":1,"name":""}` + "\n" + `{"n":2,"name":"b"}` + "\n", []int{2}, 1},
		{"blank lines", "\n\n" + `{"n":3,"name":"c"}` + "\n\n", []int{3}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "j.journal")
			if tt.content != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			j, entries, skipped, err := journal.Open(path, valid)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			var got []int
			for _, e := range entries {
				got = append(got, e.N)
			}
			if len(got) != len(tt.want) || skipped != tt.wantSkipped {
				t.Fatalf("Open = %v (skipped %d), want %v (skipped %d)", got, skipped, tt.want, tt.wantSkipped)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("Open = %v, want %v", got, tt.want)
				}
			}
			// The torn line is gone: an append lands on a clean line.
			if err := j.Append(entry{N: 9, Name: "z"}); err != nil {
				t.Fatal(err)
			}
			again, skipped, err := journal.Read(path, valid)
			if err != nil || skipped != 0 || len(again) != len(tt.want)+1 || again[len(again)-1].N != 9 {
				t.Errorf("after append: %v, skipped %d, %v", again, skipped, err)
			}
		})
	}
}

// TestConcurrentAppendsSurviveAbandon appends from many goroutines, abandons
// the file without a final sync (a crash) and finds every acknowledged entry.
func TestConcurrentAppendsSurviveAbandon(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.journal")
	j, _, _, err := journal.Open(path, valid)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := j.Append(entry{N: w*each + i, Name: "x"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	j.Abandon()
	entries, skipped, err := journal.Read(path, valid)
	if err != nil || skipped != 0 {
		t.Fatalf("Read: %v, skipped %d", err, skipped)
	}
	seen := map[int]bool{}
	for _, e := range entries {
		seen[e.N] = true
	}
	if len(entries) != writers*each || len(seen) != writers*each {
		t.Errorf("after abandon: %d entries, %d distinct, want %d", len(entries), len(seen), writers*each)
	}
	if _, err := j.Write(entry{N: 1, Name: "x"}); err == nil {
		t.Error("Write after Abandon succeeded, want an error")
	}
}

func TestRewriteReplacesContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.journal")
	j, _, _, err := journal.Open(path, valid)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Append(entry{1, "a"}, entry{2, "b"}, entry{3, "c"}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		keep []entry
	}{
		{"compact to one", []entry{{2, "b"}}},
		{"truncate", nil},
		{"grow again", []entry{{4, "d"}, {5, "e"}}},
	} {
		if err := j.Rewrite(tt.keep); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got, _, err := journal.Read(path, valid)
		if err != nil || len(got) != len(tt.keep) {
			t.Fatalf("%s: Read = %v, %v; want %v", tt.name, got, err, tt.keep)
		}
		for i := range got {
			if got[i] != tt.keep[i] {
				t.Errorf("%s: Read = %v, want %v", tt.name, got, tt.keep)
			}
		}
	}
	if err := j.Append(entry{6, "f"}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := journal.Read(path, valid); len(got) != 3 {
		t.Errorf("append after rewrite: %v, want 3 entries", got)
	}
}
