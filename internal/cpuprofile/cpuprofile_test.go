package cpuprofile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStart writes a profile (gzipped protobuf), does nothing for "", and
// fails where the file cannot be created or a profile already runs.
func TestStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	stop, err := Start(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Start(filepath.Join(t.TempDir(), "second.pprof")); err == nil {
		t.Error("a second profile started while one runs")
	}
	stop()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		t.Errorf("%s holds %d bytes, not a gzipped profile", path, len(raw))
	}

	stop, err = Start("")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := Start(filepath.Join(t.TempDir(), "missing", "cpu.pprof")); err == nil {
		t.Error("a profile in a missing directory started")
	}
}
