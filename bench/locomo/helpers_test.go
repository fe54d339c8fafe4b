package locomo

import (
	"os"
	"path/filepath"
	"testing"
)

// dataDir locates ../shared/bench/locomo beside the module root. Outside CI a
// missing directory skips the test; in CI it fails it.
func dataDir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			data := filepath.Join(dir, "..", "shared", "bench", "locomo")
			if _, err := os.Stat(filepath.Join(data, "26.json")); err != nil {
				missing(t, "LoCoMo data not found at "+data+": "+err.Error())
			}
			return data
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}

func missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// loadData loads the five LoCoMo conversations.
func loadData(t testing.TB) []Conversation {
	t.Helper()
	convs, err := Load(dataDir(t))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return convs
}
