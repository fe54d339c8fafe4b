package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gofrs/flock"
	"github.com/kgmem/kgmem"
)

// ErrFileInUse is what Open returns when the file is open in another Store
// that cannot share it: one opened Exclusive while others are open, or any
// while an Exclusive one is.
var ErrFileInUse = errors.New("sqlite: the file is open in another store")

// Option configures Open.
type Option func(*options)

// options are what the Options set.
type options struct {
	exclusive             bool
	backgroundCheckpoints bool
	episodeCacheBytes     int
	// writeOnly: no views are seeded from writes (WriteOnly).
	writeOnly bool
}

// Exclusive opens the file for this Store alone (the kgmem server owns its
// data directory so): no other Store, in this process or another, may open
// it while this one is open, and none may be open already (ErrFileInUse).
// The Store then keeps its namespaces' graph and episode versions in memory,
// read once and read again only after its own writes, instead of reading
// them before every use of what it caches (the BM25 indexes, the thread
// orders, the episodes): no other writer can change them unseen.
func Exclusive() Option { return func(o *options) { o.exclusive = true } }

// BackgroundCheckpoints takes the WAL checkpoints out of the writer's
// commits: a connection of the Store's own runs them after commits
// (internal/walcheckpoint), so the single writer never waits for a
// checkpoint's fsync. It is for a store that only writes, such as a bulk
// import's, which writes faster with it; under searches it raises their
// tail latency, so the server does not use it.
func BackgroundCheckpoints() Option { return func(o *options) { o.backgroundCheckpoints = true } }

// WriteOnly tells the Store that it will be searched little or not at all,
// as a bulk import's is: a write to a namespace that held nothing does not
// build the namespace's views (BM25 indexes, thread order) for the searches
// that would follow it, which a server's Store does.
func WriteOnly() Option { return func(o *options) { o.writeOnly = true } }

// BulkImport are the options of a Store that only writes, as a bulk import's
// (`server ingest` in process): checkpoints beside the writer, and no
// episodes or views kept for searches that do not come.
func BulkImport() []Option {
	return []Option{BackgroundCheckpoints(), EpisodeCacheBytes(0), WriteOnly()}
}

// EpisodeCacheBytes bounds the memory of the episodes the Store keeps for
// Episodes, the most recently read or written, to about bytes (default 64
// MiB; 0 keeps none). A store that only writes, such as a bulk import's,
// reads few of them back, and a larger heap costs its collector more.
func EpisodeCacheBytes(bytes int) Option {
	return func(o *options) { o.episodeCacheBytes = max(0, bytes) }
}

// ownership is a Store's hold on its file through a lock file beside it:
// shared by Stores opened without Exclusive, exclusive for one opened with it.
type ownership struct {
	lock *flock.Flock
}

// own takes the lock file of path, shared or exclusive, without waiting.
func own(path string, exclusive bool) (*ownership, error) {
	fl := flock.New(path + ".lock")
	take, mode := fl.TryRLock, "shared"
	if exclusive {
		take, mode = fl.TryLock, "exclusive"
	}
	ok, err := take()
	if err != nil {
		return nil, fmt.Errorf("sqlite: lock %s (%s): %w", fl.Path(), mode, err)
	}
	if !ok {
		return nil, fmt.Errorf("sqlite: open %s for %s use: %w", path, mode, ErrFileInUse)
	}
	return &ownership{lock: fl}, nil
}

// release lets other Stores open the file.
func (o *ownership) release() error { return o.lock.Unlock() }

// nsVersions are a namespace's graph version (graph_versions: what the
// views of topology.go, lexical.go and threadorder.go are valid at) and
// episode version (episode_versions: what episodecache.go's episodes are
// valid at); 0 for none.
type nsVersions struct {
	graph, episode int64
}

// readVersions reads both versions of ns in one query.
func readVersions(ctx context.Context, q querier, ns kgmem.Namespace) (nsVersions, error) {
	rows, err := q.QueryContext(ctx, `SELECT
		coalesce((SELECT version FROM graph_versions WHERE namespace = ?), 0),
		coalesce((SELECT version FROM episode_versions WHERE namespace = ?), 0)`, ns, ns)
	if err != nil {
		return nsVersions{}, fmt.Errorf("versions of %s: %w", ns, wrapErr(err))
	}
	defer func() { _ = rows.Close() }()
	var v nsVersions
	if rows.Next() {
		err = rows.Scan(&v.graph, &v.episode)
	}
	if err = errors.Join(err, rows.Err()); err != nil {
		return nsVersions{}, fmt.Errorf("versions of %s: %w", ns, wrapErr(err))
	}
	return v, nil
}

// versionsOf returns the current versions of ns: read from the file, or,
// for an Exclusive Store, from memory once read.
func (s *Store) versionsOf(ctx context.Context, ns kgmem.Namespace) (nsVersions, error) {
	return remembered(ctx, s.memo, ns, func(e *memoEntry) **nsVersions { return &e.versions },
		func(ctx context.Context) (nsVersions, error) { return readVersions(ctx, s.cached(s.r), ns) })
}

// versionMemo holds what an Exclusive Store read of a namespace that only
// its own writes change, its versions and settings, until its next write
// there. Each entry carries a generation, drawn from one counter and renewed
// by every write: a read keeps what it read only if no write to its
// namespace ended while it ran. It is safe for concurrent use. A nil memo
// (a Store that shares its file) holds nothing.
//
// Installing versions a write knows (advanced) is right only in the order
// the writes committed: commits, and what each does to the memo after, run
// under commitMu. Dropping what is held (written) is right at any time.
type versionMemo struct {
	commitMu sync.Mutex

	mu      sync.Mutex
	counter uint64
	entries map[kgmem.Namespace]*memoEntry
}

// memoEntry is what is held of one namespace, read at generation gen; nil
// fields are not held.
type memoEntry struct {
	gen      uint64
	versions *nsVersions
	settings *string // the stored settings' JSON; "" for none
}

// maxMemoEntries bounds the namespaces a versionMemo holds; past it, it
// starts over.
const maxMemoEntries = 100_000

// newVersionMemo returns an empty memo.
func newVersionMemo() *versionMemo {
	return &versionMemo{entries: map[kgmem.Namespace]*memoEntry{}}
}

// remembered returns the value field selects in the entry of ns, reading it
// with read and keeping it when it is not held (with a nil m: always read).
func remembered[T any](ctx context.Context, m *versionMemo, ns kgmem.Namespace, field func(*memoEntry) **T,
	read func(context.Context) (T, error)) (T, error) {
	if m == nil {
		return read(ctx)
	}
	m.mu.Lock()
	e := m.entries[ns]
	if e == nil {
		if len(m.entries) >= maxMemoEntries {
			clear(m.entries)
		}
		m.counter++
		e = &memoEntry{gen: m.counter}
		m.entries[ns] = e
	}
	held, gen := *field(e), e.gen
	m.mu.Unlock()
	if held != nil {
		return *held, nil
	}
	v, err := read(ctx)
	if err != nil {
		return v, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.entries[ns]; e != nil && e.gen == gen {
		*field(e) = &v
	}
	return v, nil
}

// commit runs commit (a transaction's Commit on the writer) and then
// after with its error, with no other commit in between: after may install
// what a committed transaction wrote (advanced), and drops what is held
// (written) when the commit failed. With a nil m it just commits.
func (m *versionMemo) commit(commit func() error, after func(err error)) error {
	if m == nil {
		return commit()
	}
	m.commitMu.Lock()
	defer m.commitMu.Unlock()
	err := commit()
	after(err)
	return err
}

// advanced records that a write to ns committed, under commit, raising its
// graph version to graph and leaving its episode version as it was, or
// setting it to episode when episode > 0: the next search need not read
// them back. Versions are installed only when both are known: held before
// (the episode version then carried over) or episode > 0; otherwise it is
// as written. Nothing is done for a namespace no read has asked for.
func (m *versionMemo) advanced(ns kgmem.Namespace, graph, episode int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entries[ns]
	if e == nil {
		return
	}
	m.counter++
	v := nsVersions{graph: graph, episode: episode}
	switch {
	case e.versions != nil && episode <= 0:
		v.episode = e.versions.episode
	case e.versions == nil && episode <= 0:
		*e = memoEntry{gen: m.counter}
		return
	}
	// What a concurrent read of ns brings back is older: the new
	// generation keeps it out.
	*e = memoEntry{gen: m.counter, versions: &v, settings: e.settings}
}

// written records that a write to ns ended (committed or not): what is held
// of ns, and any read of it running now, are stale.
func (m *versionMemo) written(ns kgmem.Namespace) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.entries[ns]; e != nil {
		m.counter++
		*e = memoEntry{gen: m.counter}
	}
}
