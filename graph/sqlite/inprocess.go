package sqlite

import "github.com/kgmem/kgmem"

var _ kgmem.InProcessStore = (*Store)(nil)

// RunsInProcess implements kgmem.InProcessStore: the database is a file
// this process reads and writes itself.
func (s *Store) RunsInProcess() bool { return true }
