package serverid_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/internal/serverid"
)

func TestReadIsStablePerDirectory(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	first, err := serverid.Read(dir)
	if err != nil || !strings.HasPrefix(first, "srv_") {
		t.Fatalf("Read = %q, %v", first, err)
	}
	if again, err := serverid.Read(dir); err != nil || again != first {
		t.Errorf("second Read = %q, %v; want %q", again, err, first)
	}
	if elsewhere, err := serverid.Read(other); err != nil || elsewhere == first {
		t.Errorf("another directory's id = %q, %v; want a different one", elsewhere, err)
	}
	if _, err := os.Stat(filepath.Join(dir, serverid.File)); err != nil {
		t.Errorf("id file: %v", err)
	}
	if _, err := serverid.Read(""); err == nil {
		t.Error("Read without a directory succeeded")
	}
}
