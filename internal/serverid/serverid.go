// Package serverid gives a server a stable name, kept in its data
// directory: the owner of its background jobs and its vector outbox in
// records that several servers share, so that a server restarted on the
// same data directory takes its own work back at once, while the work of a
// server whose disk is gone is taken over by the others.
package serverid

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kgmem/kgmem"
)

// File names, in a data directory, the file holding the server's id.
const File = "server-id"

// Read returns the id kept in dataDir, creating it on first use.
func Read(dataDir string) (string, error) {
	if dataDir == "" {
		return "", errors.New("server id: no data directory")
	}
	path := filepath.Join(dataDir, File)
	b, err := os.ReadFile(path)
	if err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			return id, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read server id: %w", err)
	}
	id := kgmem.NewID("srv")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write server id: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("write server id: %w", err)
	}
	return id, nil
}
