package chatlog

// queue holds the records of one decoded element (a conversation) until Next
// hands them out; pending errors are interleaved in source order.
type queue struct {
	items []queued
}

type queued struct {
	rec Record
	err error
}

func (q *queue) push(rec Record, err error) { q.items = append(q.items, queued{rec, err}) }

func (q *queue) pop() (Record, error, bool) {
	if len(q.items) == 0 {
		return Record{}, nil, false
	}
	it := q.items[0]
	q.items[0] = queued{}
	q.items = q.items[1:]
	if len(q.items) == 0 {
		q.items = nil
	}
	return it.rec, it.err, true
}
