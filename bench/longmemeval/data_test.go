package longmemeval

import (
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

const fixture = "testdata/mini.json"

// loadFixture loads the hand-made three-question fixture.
func loadFixture(t testing.TB) []Question {
	t.Helper()
	qs, err := Load(fixture)
	if err != nil {
		t.Fatalf("Load(%s): %v", fixture, err)
	}
	return qs
}

func TestLoad(t *testing.T) {
	raw, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	gzDir := t.TempDir()
	f, err := os.Create(filepath.Join(gzDir, DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(zw.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	plainDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(plainDir, "longmemeval_s_dev.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fixture, filepath.Join(gzDir, DefaultFile), gzDir, plainDir} {
		qs, err := Load(path)
		if err != nil {
			t.Fatalf("Load(%s): %v", path, err)
		}
		if len(qs) != 3 || qs[0].ID != "q1" || qs[1].Answer != "2" || qs[0].Answer != "Luna" || !qs[2].Abstention() || qs[1].Abstention() {
			t.Fatalf("Load(%s) = %+v", path, qs)
		}
		if !qs[0].Sessions[0][0].HasAnswer || qs[0].Sessions[0][1].HasAnswer || qs[1].SessionIDs[3] != "a3" {
			t.Errorf("Load(%s): turns %+v", path, qs[0].Sessions[0])
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := `{"question_id":"x","question_type":"multi-session","question":"q?","answer":"a","haystack_session_ids":%s,"haystack_dates":%s,"haystack_sessions":%s,"answer_session_ids":[]}`
	q := func(ids, dates, sessions string) string {
		return "[" + fmt.Sprintf(one, ids, dates, sessions) + "]"
	}
	tests := []struct {
		name, path string
		want       error
		msg        string
	}{
		{"missing file", filepath.Join(dir, "nope.json"), kgmem.ErrNotFound, ""},
		{"folder without the file", t.TempDir(), kgmem.ErrNotFound, DefaultFile},
		{"not JSON", write("bad.json", "{"), kgmem.ErrInvalid, "decode"},
		{"empty array", write("empty.json", "[]"), kgmem.ErrInvalid, "no questions"},
		{"ids not parallel", write("par.json", q(`["s1","s2"]`, `["2023/05/01 (Mon) 10:00"]`, `[[]]`)), kgmem.ErrInvalid, "parallel"},
		{"bad date", write("date.json", q(`["s1"]`, `["May 1st"]`, `[[]]`)), kgmem.ErrInvalid, "haystack_dates[0]"},
		{"bad role", write("role.json", q(`["s1"]`, `["2023/05/01 (Mon) 10:00"]`, `[[{"role":"system","content":"x"}]]`)), kgmem.ErrInvalid, "role"},
		{"colon in session id", write("colon.json", q(`["s:1"]`, `["2023/05/01 (Mon) 10:00"]`, `[[]]`)), kgmem.ErrInvalid, "without ':'"},
	}
	for _, tt := range tests {
		_, err := Load(tt.path)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: Load = %v, want %v mentioning %q", tt.name, err, tt.want, tt.msg)
		}
	}
}

func TestParseDate(t *testing.T) {
	got, err := ParseDate("2023/05/30 (Tue) 18:40")
	if want := time.Date(2023, 5, 30, 18, 40, 0, 0, time.UTC); err != nil || !got.Equal(want) {
		t.Errorf("ParseDate = %v, %v; want %v", got, err, want)
	}
}
