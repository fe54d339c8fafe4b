package hnsw

import "github.com/kgmem/kgmem"

var _ kgmem.InProcessStore = (*Index)(nil)

// RunsInProcess implements kgmem.InProcessStore: the index is held and
// searched in this process's memory.
func (x *Index) RunsInProcess() bool { return true }
