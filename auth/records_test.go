package auth_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/auth/authtest"
)

// TestSQLiteKeyRecords runs the key records suite on the SQLite key file,
// two handles being two processes opening the same file.
func TestSQLiteKeyRecords(t *testing.T) {
	authtest.Run(t, func(t *testing.T) (auth.KeyRecords, auth.KeyRecords) {
		path := filepath.Join(t.TempDir(), "keys.db")
		open := func() auth.KeyRecords {
			rec, err := auth.OpenKeyRecords(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = rec.Close() })
			return rec
		}
		return open(), open()
	})
}
