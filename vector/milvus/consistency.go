package milvus

import (
	"time"

	"github.com/milvus-io/milvus-sdk-go/v2/entity"
)

// deleteSettle is how long after a delete Session reads are upgraded to Strong.
// Milvus 2.3 answers a delete without a timestamp, so the SDK's session token
// (the newest write timestamp it has seen) does not cover deletes; a Session
// read right after one could still see the deleted rows. Query nodes apply a
// delete within one time tick (~200 ms), so two seconds leaves a wide margin.
const deleteSettle = 2 * time.Second

// readLevel is the consistency level of the next read: the configured one,
// except Session within deleteSettle of this index's last delete.
func (ix *Index) readLevel() entity.ConsistencyLevel {
	if ix.level != entity.ClSession {
		return ix.level
	}
	if last := ix.lastDelete.Load(); last != 0 && time.Since(time.Unix(0, last)) < deleteSettle {
		return entity.ClStrong
	}
	return ix.level
}

// deleted records that a delete was sent, before the call returns to the caller.
func (ix *Index) deleted() { ix.lastDelete.Store(time.Now().UnixNano()) }
