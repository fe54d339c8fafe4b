package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// errDataDirInUse is returned when another kgmem process holds the data
// directory.
var errDataDirInUse = errors.New("the data directory is in use by another kgmem process")

// dataDirLockName is the lock file in the data directory; it holds the pid
// of the process that has it.
const dataDirLockName = "kgmem.lock"

// dataDirLock is an exclusive lock on a data directory for the life of a
// process: the recall journal and the vector outbox live there whatever
// the backends, and with the embedded ones the graph and the vectors too,
// none of which two processes may write at once.
type dataDirLock struct{ fl *flock.Flock }

// lockDataDir takes the lock on dir without waiting. When another process
// has it, the error wraps errDataDirInUse and names that process's pid.
func lockDataDir(dir string, embedded bool) (*dataDirLock, error) {
	path := filepath.Join(dir, dataDirLockName)
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock the data directory %s: %w", dir, err)
	}
	if !ok {
		holder := "another process"
		if raw, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil {
				holder = fmt.Sprintf("process %d", pid)
			}
		}
		hint := "give each server its own --data-dir"
		if embedded {
			hint = "the embedded backends (SQLite + HNSW) serve one process; stop that one, or run several servers on Neo4j + Milvus (--graph neo4j --vector milvus), each with its own --data-dir"
		}
		return nil, fmt.Errorf("%w: %s holds %s; %s", errDataDirInUse, holder, dir, hint)
	}
	// The pid is for the message above; the lock is what counts.
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		_ = fl.Unlock()
		return nil, fmt.Errorf("lock the data directory %s: %w", dir, err)
	}
	return &dataDirLock{fl: fl}, nil
}

// release gives the lock up.
func (l *dataDirLock) release() error {
	if l == nil {
		return nil
	}
	return l.fl.Unlock()
}
