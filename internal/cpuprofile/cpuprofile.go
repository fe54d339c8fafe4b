// Package cpuprofile writes a Go CPU profile of the running process to a
// file: what the commands' --cpuprofile flags (server ingest, bench synth,
// cmd/load) share.
package cpuprofile

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
)

// Start profiles the process's CPU into a file created at path until the
// returned stop is called. With path "" it does nothing, and stop neither.
func Start(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	out, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		return nil, errors.Join(fmt.Errorf("start CPU profile: %w", err), out.Close())
	}
	return func() {
		pprof.StopCPUProfile()
		_ = out.Close()
	}, nil
}
