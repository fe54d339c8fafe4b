package main

import (
	"errors"
	"fmt"
	"net"
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
// of the process that has it and, once a server listens, the URL it serves
// on (a second line), so a command refused the directory can point at it.
const dataDirLockName = "kgmem.lock"

// dataDirInUseError says which process holds a data directory and, when it
// is a server that announced its address, where to reach it. It matches
// errDataDirInUse with errors.Is.
type dataDirInUseError struct {
	// Dir is the data directory.
	Dir string
	// PID is the holder's process id (0: unknown).
	PID int
	// URL is the address the holder serves the API on ("" unknown).
	URL string
	// Embedded is true when the refused command runs on the embedded backends.
	Embedded bool
}

// Error names the holder and what to do instead.
func (e *dataDirInUseError) Error() string {
	holder := "another process"
	if e.PID > 0 {
		holder = fmt.Sprintf("process %d", e.PID)
	}
	if e.URL != "" {
		holder += " (a kgmem server at " + e.URL + ")"
	}
	use := "to work through the running server, pass its address: --url http://HOST:PORT (server ingest and server mcp take it)"
	if e.URL != "" {
		use = "to work through it, pass --url " + e.URL + " (server ingest and server mcp take it)"
	}
	other := "or give each server its own --data-dir"
	if e.Embedded {
		other = "or stop that one; the embedded backends (SQLite + HNSW) serve one process: run several servers on Neo4j + Milvus (--graph neo4j --vector milvus), each with its own --data-dir"
	}
	return fmt.Sprintf("%v: %s holds %s; %s, %s", errDataDirInUse, holder, e.Dir, use, other)
}

// Unwrap lets errors.Is find errDataDirInUse.
func (e *dataDirInUseError) Unwrap() error { return errDataDirInUse }

// dataDirLock is an exclusive lock on a data directory for the life of a
// process: the recall journal and the vector outbox live there whatever
// the backends, and with the embedded ones the graph and the vectors too,
// none of which two processes may write at once.
type dataDirLock struct {
	fl   *flock.Flock
	path string
}

// lockDataDir takes the lock on dir without waiting. When another process
// has it, the error is a *dataDirInUseError naming that process.
func lockDataDir(dir string, embedded bool) (*dataDirLock, error) {
	path := filepath.Join(dir, dataDirLockName)
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock the data directory %s: %w", dir, err)
	}
	if !ok {
		pid, url := readDataDirLock(path)
		return nil, &dataDirInUseError{Dir: dir, PID: pid, URL: url, Embedded: embedded}
	}
	l := &dataDirLock{fl: fl, path: path}
	// The pid is for the message above; the lock is what counts.
	if err := l.write(""); err != nil {
		_ = fl.Unlock()
		return nil, err
	}
	return l, nil
}

// readDataDirLock returns the pid and URL a lock file records (zero values
// for what it does not hold).
func readDataDirLock(path string) (pid int, url string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, ""
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if p, err := strconv.Atoi(strings.TrimSpace(lines[0])); err == nil {
		pid = p
	}
	if len(lines) > 1 {
		url = strings.TrimSpace(lines[1])
	}
	return pid, url
}

// announce records the URL this process serves the API on in the lock
// file, for the commands it refuses the directory to.
func (l *dataDirLock) announce(url string) error {
	if l == nil {
		return nil
	}
	return l.write(url)
}

// write replaces the lock file's contents with this process's pid and url.
func (l *dataDirLock) write(url string) error {
	body := strconv.Itoa(os.Getpid()) + "\n"
	if url != "" {
		body += url + "\n"
	}
	if err := os.WriteFile(l.path, []byte(body), 0o644); err != nil {
		return fmt.Errorf("lock the data directory %s: %w", filepath.Dir(l.path), err)
	}
	return nil
}

// localURL is the URL a process on this machine reaches a listener at: an
// unspecified host (0.0.0.0, ::) becomes the loopback address.
func localURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port)
}

// release gives the lock up.
func (l *dataDirLock) release() error {
	if l == nil {
		return nil
	}
	return l.fl.Unlock()
}
