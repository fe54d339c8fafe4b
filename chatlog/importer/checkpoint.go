package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// checkpointVersion is bumped when the file's meaning changes.
const checkpointVersion = 1

// checkpointFile is the checkpoint's JSON form.
type checkpointFile struct {
	Version int    `json:"version"`
	Format  string `json:"format"`
	// Threads maps "namespace\x00thread" to how many of the thread's valid
	// records, in input order, are stored.
	Threads map[string]int `json:"threads"`
	Updated time.Time      `json:"updated"`
}

// Checkpoint records per-thread progress and saves it durably: written to a
// temporary file, fsynced, renamed over the old one, and the directory
// fsynced, so a crash leaves the old or the new checkpoint, never a torn one.
type Checkpoint struct {
	path string

	mu    sync.Mutex
	file  checkpointFile
	dirty bool
}

// LoadCheckpoint reads the checkpoint at path; a missing file is an empty
// checkpoint. An empty path gives a checkpoint that is never saved.
func LoadCheckpoint(path string) (*Checkpoint, error) {
	c := &Checkpoint{path: path, file: checkpointFile{Version: checkpointVersion, Threads: map[string]int{}}}
	if path == "" {
		return c, nil
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	if err := json.Unmarshal(raw, &c.file); err != nil {
		return nil, fmt.Errorf("checkpoint %s is corrupt (delete it to start over): %w", path, err)
	}
	if c.file.Version != checkpointVersion {
		return nil, fmt.Errorf("checkpoint %s has version %d, this build reads %d (delete it to start over)", path, c.file.Version, checkpointVersion)
	}
	if c.file.Threads == nil {
		c.file.Threads = map[string]int{}
	}
	return c, nil
}

func threadKey(ns, thread string) string { return ns + "\x00" + thread }

// Done returns how many records of the thread are stored.
func (c *Checkpoint) Done(ns, thread string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.file.Threads[threadKey(ns, thread)]
}

// Total returns the stored records over all threads.
func (c *Checkpoint) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.file.Threads {
		n += v
	}
	return n
}

// advance records that the first n records of the thread are stored.
func (c *Checkpoint) advance(key string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.file.Threads[key] {
		c.file.Threads[key] = n
		c.dirty = true
	}
}

// checkFormat refuses to resume a checkpoint of another format.
func (c *Checkpoint) checkFormat(format string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file.Format != "" && c.file.Format != format && len(c.file.Threads) > 0 {
		return fmt.Errorf("checkpoint %s was written for a %s input, this input is %s (delete it or give another --checkpoint)", c.path, c.file.Format, format)
	}
	c.file.Format = format
	return nil
}

// Save writes the checkpoint durably if anything changed since the last save.
func (c *Checkpoint) Save() error {
	c.mu.Lock()
	if c.path == "" || !c.dirty {
		c.mu.Unlock()
		return nil
	}
	c.file.Updated = time.Now().UTC()
	raw, err := json.Marshal(c.file)
	c.dirty = false
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("encode checkpoint: %w", err)
	}
	if err := writeFileDurably(c.path, raw); err != nil {
		c.mu.Lock()
		c.dirty = true
		c.mu.Unlock()
		return err
	}
	return nil
}

// writeFileDurably replaces path with data atomically and durably.
func writeFileDurably(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("fsync checkpoint: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close checkpoint: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace checkpoint: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("fsync checkpoint directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync checkpoint directory: %w", err)
	}
	return nil
}
