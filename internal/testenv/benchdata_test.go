package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Skip and Fatal instead of ending the
// test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skip(args ...any)                  { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestBenchData(t *testing.T) {
	withData := t.TempDir()
	if err := os.WriteFile(filepath.Join(withData, "26.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, value     string
		want            string
		skipped, failed bool
	}{
		{name: "unset skips naming the variable", value: "", skipped: true},
		{name: "a folder without the data fails", value: t.TempDir(), failed: true},
		{name: "a folder with the data is returned", value: withData, want: withData},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(LoCoMoDataVar, tc.value)
			t.Setenv("CI", "true") // CI changes nothing
			r := &recorder{TB: t}
			got := LoCoMoData(r)
			if (r.skipped != "") != tc.skipped || (r.failed != "") != tc.failed || (!tc.skipped && !tc.failed && got != tc.want) {
				t.Fatalf("got %q, skipped %q, failed %q", got, r.skipped, r.failed)
			}
			if msg := r.skipped + r.failed; msg != "" && !strings.Contains(msg, LoCoMoDataVar) {
				t.Errorf("message %q does not name %s", msg, LoCoMoDataVar)
			}
		})
	}
}
