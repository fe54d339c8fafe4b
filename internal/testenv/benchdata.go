package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Environment variables that point the benchmark-reproduction tests at their
// data sets. .ci/run sets both to the sibling ../shared/bench folders; a clone
// without them skips those tests, in CI too, with a message naming the
// variable.
const (
	// LoCoMoDataVar names the directory of the LoCoMo conversations
	// (26.json … 43.json).
	LoCoMoDataVar = "KGMEM_LOCOMO_DATA"
	// LongMemEvalDataVar names the directory of the LongMemEval split
	// (longmemeval_s_dev.json.gz).
	LongMemEvalDataVar = "KGMEM_LONGMEMEVAL_DATA"
)

// LoCoMoData returns the LoCoMo data directory named by KGMEM_LOCOMO_DATA. It
// skips the test when the variable is unset and fails it when the variable
// names a directory without the conversations.
func LoCoMoData(t testing.TB) string {
	t.Helper()
	return benchData(t, LoCoMoDataVar, "LoCoMo", "26.json")
}

// LongMemEvalData returns the LongMemEval data directory named by
// KGMEM_LONGMEMEVAL_DATA, skipping and failing as LoCoMoData does.
func LongMemEvalData(t testing.TB) string {
	t.Helper()
	return benchData(t, LongMemEvalDataVar, "LongMemEval", "longmemeval_s_dev.json.gz")
}

func benchData(t testing.TB, name, what, probe string) string {
	t.Helper()
	dir := os.Getenv(name)
	if dir == "" {
		t.Skip(what + " data not configured: set " + name + " to its directory (.ci/run sets it to ../shared/bench)")
		return ""
	}
	if _, err := os.Stat(filepath.Join(dir, probe)); err != nil {
		t.Fatalf("%s=%s: %s data not found: %v", name, dir, what, err)
	}
	return dir
}
