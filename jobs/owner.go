package jobs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kgmem/kgmem"
)

// ownerFile names, in a data directory, the file holding the server's
// stable owner id.
const ownerFile = "server-id"

// ownerID reads the owner id kept in dataDir, creating it on first use, so
// a server restarted on the same data directory takes its own jobs back.
func ownerID(dataDir string) (string, error) {
	if dataDir == "" {
		return "", errors.New("jobs: Config.DataDir or Config.Owner is required")
	}
	path := filepath.Join(dataDir, ownerFile)
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
