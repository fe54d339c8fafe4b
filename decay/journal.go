package decay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/kgmem/kgmem"
)

// journalEntry is one Enqueue call: one JSON line of the journal.
type journalEntry struct {
	NS   kgmem.Namespace `json:"ns"`
	At   time.Time       `json:"at"`
	Refs []Ref           `json:"refs"`
}

// journal is the Reinforcer's append-only write-ahead log of reinforcements
// not yet applied: JSON lines, appended by write and made durable by sync
// (several appends may share one fsync: group commit), rewritten atomically
// when entries have been applied. It is not safe for concurrent use; the
// Reinforcer serialises access.
type journal struct {
	path string
	f    *os.File
	size int64
	// written counts appended lines; synced is the count known to be on disk.
	written, synced uint64
}

// openJournal opens (creating if needed) the journal at path and returns the
// entries it holds. Lines that do not parse (a write torn by a crash) are
// skipped and counted; the file is then rewritten with the good entries only,
// so new appends never follow a torn line.
func openJournal(path string) (*journal, []journalEntry, int, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, 0, fmt.Errorf("create journal directory: %w", err)
	}
	entries, skipped, err := readJournal(path)
	if err != nil {
		return nil, nil, 0, err
	}
	j := &journal{path: path}
	if err := j.rewrite(entries); err != nil {
		return nil, nil, 0, err
	}
	return j, entries, skipped, nil
}

// readJournal parses the journal file; a missing file holds no entries.
func readJournal(path string) ([]journalEntry, int, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("open journal: %w", err)
	}
	defer f.Close()
	var (
		entries []journalEntry
		skipped int
		rd      = bufio.NewReader(f)
	)
	for {
		line, err := rd.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			var e journalEntry
			if json.Unmarshal(line, &e) == nil && validEntry(e) {
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

// validEntry reports whether a decoded journal line is a usable entry.
func validEntry(e journalEntry) bool {
	_, err := kgmem.ParseNamespace(string(e.NS))
	return err == nil && !e.At.IsZero() && len(e.Refs) > 0 && validateRefs(e.Refs) == nil
}

// write appends one entry without syncing and returns its sequence number,
// which sync takes. A failed write is cut off again so the file never keeps a
// torn line.
func (j *journal) write(e journalEntry) (uint64, error) {
	if j.f == nil {
		return 0, errors.New("journal is closed")
	}
	line, err := json.Marshal(e)
	if err != nil {
		return 0, fmt.Errorf("encode journal entry: %w", err)
	}
	line = append(line, '\n')
	if _, err := j.f.Write(line); err != nil {
		_ = j.f.Truncate(j.size)
		return 0, fmt.Errorf("append to journal: %w", err)
	}
	j.size += int64(len(line))
	j.written++
	return j.written, nil
}

// rewrite replaces the journal's content with entries: a truncation when there
// are none, otherwise a new file fsynced and renamed over the old one.
func (j *journal) rewrite(entries []journalEntry) error {
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

// close syncs and closes the journal file; its entries stay on disk for the
// next start.
func (j *journal) close() error {
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
