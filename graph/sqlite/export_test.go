package sqlite

import (
	"github.com/kgmem/kgmem/internal/nscache"
	"github.com/kgmem/kgmem/lexical"
)

// SearchThroughFTS5 makes s rank every search with FTS5, as it does for a
// namespace too large for the in-memory BM25 index.
func SearchThroughFTS5(s *Store) { s.lex = nscache.New[*lexical.Index](0, 0) }
