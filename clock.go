package kgmem

import "time"

// Clock tells the time. The engine and the decay model take one so tests can run
// months in milliseconds.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real wall clock, in UTC.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }
