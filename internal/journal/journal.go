// Package journal is an append-only, fsynced file of JSON lines: the
// write-ahead log behind the decay Reinforcer's recall queue and the vector
// outbox. Appends are group-committed (callers that arrive while an fsync runs
// share the next one), the file is replaced atomically (write, fsync, rename,
// fsync the directory) when its owner compacts it, and a line torn by a crash
// is skipped and dropped on the next open.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Journal is one journal file of entries of type T. It is safe for concurrent
// use.
type Journal[T any] struct {
	path string

	// syncMu serialises fsyncs with file replacement and close; taken before mu.
	syncMu sync.Mutex
	mu     sync.Mutex // guards the fields below
	f      *os.File
	size   int64
	// written counts appended lines; synced is the count known to be on disk.
	written, synced uint64
}

// Open opens (creating it and its directory if needed) the journal at path and
// returns the entries it holds, in order. Lines that do not decode, or that
// valid (when non-nil) rejects, are skipped and counted: a write torn by a
// crash. The file is then rewritten with the good entries only, so new
// appends never follow a torn line.
func Open[T any](path string, valid func(T) bool) (*Journal[T], []T, int, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, 0, fmt.Errorf("create journal directory: %w", err)
	}
	entries, skipped, err := read(path, valid)
	if err != nil {
		return nil, nil, 0, err
	}
	j := &Journal[T]{path: path}
	if err := j.Rewrite(entries); err != nil {
		return nil, nil, 0, err
	}
	return j, entries, skipped, nil
}

// Read parses the journal file at path without opening it for writing (a
// missing file holds no entries) and returns its entries and the count of
// lines skipped as torn or invalid.
func Read[T any](path string, valid func(T) bool) ([]T, int, error) { return read(path, valid) }

// read parses the journal file; a missing file holds no entries.
func read[T any](path string, valid func(T) bool) ([]T, int, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("open journal: %w", err)
	}
	defer f.Close()
	var (
		entries []T
		skipped int
		rd      = bufio.NewReader(f)
	)
	for {
		line, err := rd.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			var e T
			if json.Unmarshal(line, &e) == nil && (valid == nil || valid(e)) {
				entries = append(entries, e)
			} else {
				skipped++
			}
		}
		if errors.Is(err, io.EOF) {
			return entries, skipped, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("read journal: %w", err)
		}
	}
}

// Path returns the journal file's path.
func (j *Journal[T]) Path() string { return j.path }

// Write appends e without syncing and returns its sequence number, which Sync
// takes. A failed write is cut off again so the file never keeps a torn line.
func (j *Journal[T]) Write(e T) (uint64, error) {
	line, err := json.Marshal(e)
	if err != nil {
		return 0, fmt.Errorf("encode journal entry: %w", err)
	}
	line = append(line, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return 0, errors.New("journal is closed")
	}
	if _, err := j.f.Write(line); err != nil {
		_ = j.f.Truncate(j.size)
		return 0, fmt.Errorf("append to journal: %w", err)
	}
	j.size += int64(len(line))
	j.written++
	return j.written, nil
}

// Sync returns once line seq (from Write) is on disk. Callers arriving while
// an fsync runs wait for it and are then covered by one fsync for all of them.
func (j *Journal[T]) Sync(seq uint64) error {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	j.mu.Lock()
	if j.synced >= seq {
		j.mu.Unlock()
		return nil // a rewrite, a close or another caller's fsync covered it
	}
	f, target := j.f, j.written
	j.mu.Unlock()
	if f == nil {
		return errors.New("sync journal: journal is closed")
	}
	// f stays open: it is only replaced or closed under syncMu.
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync journal: %w", err)
	}
	j.mu.Lock()
	j.synced = max(j.synced, target)
	j.mu.Unlock()
	return nil
}

// Append writes entries and returns once they are on disk.
func (j *Journal[T]) Append(entries ...T) error {
	var seq uint64
	for _, e := range entries {
		s, err := j.Write(e)
		if err != nil {
			return err
		}
		seq = s
	}
	if seq == 0 {
		return nil
	}
	return j.Sync(seq)
}

// Rewrite replaces the journal's content with entries: a truncation when there
// are none, otherwise a new file fsynced and renamed over the old one. Lines
// written before the call and not in entries are gone afterwards.
func (j *Journal[T]) Rewrite(entries []T) error {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(entries) == 0 && j.f != nil {
		if err := j.f.Truncate(0); err != nil {
			return fmt.Errorf("truncate journal: %w", err)
		}
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("sync journal: %w", err)
		}
		j.size, j.synced = 0, j.written
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("encode journal entry: %w", err)
		}
	}
	tmp := j.path + ".tmp"
	if err := writeSynced(tmp, buf.Bytes()); err != nil {
		return err
	}
	if err := os.Rename(tmp, j.path); err != nil {
		return fmt.Errorf("replace journal: %w", err)
	}
	if err := syncDir(filepath.Dir(j.path)); err != nil {
		return err
	}
	if j.f != nil {
		_ = j.f.Close() // the renamed-over file is gone; its handle holds nothing to keep.
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		j.f = nil
		return fmt.Errorf("reopen journal: %w", err)
	}
	j.f, j.size, j.synced = f, int64(buf.Len()), j.written
	return nil
}

// writeSynced writes data to a new file at path and fsyncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create journal: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("write journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("sync journal: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close journal: %w", err)
	}
	return nil
}

// syncDir fsyncs a directory so a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open journal directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync journal directory: %w", err)
	}
	return nil
}

// Close syncs and closes the journal file; its entries stay on disk for the
// next Open. Close is idempotent.
func (j *Journal[T]) Close() error {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Sync()
	if err == nil {
		j.synced = j.written
	}
	err = errors.Join(err, j.f.Close())
	j.f = nil
	if err != nil {
		return fmt.Errorf("close journal: %w", err)
	}
	return nil
}

// Abandon closes the file without a final fsync, as a crash would leave it:
// only what Sync or Append made durable is certain to be on disk. Tests use it.
func (j *Journal[T]) Abandon() {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		_ = j.f.Close()
		j.f = nil
	}
}
