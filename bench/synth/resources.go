package synth

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Resources is the process's memory use at one moment.
type Resources struct {
	// MaxRSSBytes is the peak resident set size (getrusage ru_maxrss).
	MaxRSSBytes int64 `json:"max_rss_bytes"`
	// HWMBytes is the peak resident set size the kernel reports in
	// /proc/self/status (VmHWM); 0 where there is no /proc.
	HWMBytes int64 `json:"vm_hwm_bytes"`
	// AnonBytes and FileBytes split the resident set at this moment
	// (/proc/self/status RssAnon, RssFile): the process's own memory, and
	// pages of mapped files (the embedded store's database, mapped by
	// SQLite), which the kernel can drop and read again under pressure.
	AnonBytes int64 `json:"rss_anon_bytes"`
	FileBytes int64 `json:"rss_file_bytes"`
	// PeakAnonBytes is the largest AnonBytes WatchAnon sampled (0: not
	// watched).
	PeakAnonBytes int64 `json:"peak_rss_anon_bytes,omitempty"`
	// HeapInuseBytes and HeapSysBytes are the Go heap in use and obtained
	// from the OS (runtime.MemStats).
	HeapInuseBytes uint64 `json:"heap_inuse_bytes"`
	HeapSysBytes   uint64 `json:"heap_sys_bytes"`
	NumGC          uint32 `json:"num_gc"`
}

// ReadResources samples the process's memory use.
func ReadResources() Resources {
	var r Resources
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		r.MaxRSSBytes = ru.Maxrss * 1024 // kilobytes on Linux
	}
	status := procStatus("VmHWM", "RssAnon", "RssFile")
	r.HWMBytes, r.AnonBytes, r.FileBytes = status["VmHWM"], status["RssAnon"], status["RssFile"]
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.HeapInuseBytes, r.HeapSysBytes, r.NumGC = ms.HeapInuse, ms.HeapSys, ms.NumGC
	return r
}

// ProcessCPU is the CPU time the process has used so far, user and system
// (getrusage), or 0 where it cannot be read.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// WatchAnon samples the process's anonymous resident memory (RssAnon) every
// interval until the returned stop is called, which returns the largest
// sample (0 where there is no /proc).
func WatchAnon(every time.Duration) (stop func() int64) {
	done, peak := make(chan struct{}), make(chan int64)
	go func() {
		var highest int64
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			highest = max(highest, procStatus("RssAnon")["RssAnon"])
			select {
			case <-done:
				peak <- max(highest, procStatus("RssAnon")["RssAnon"])
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		return <-peak
	}
}

// procStatus reads the given kB fields of /proc/self/status, in bytes
// (absent where there is no /proc).
func procStatus(fields ...string) map[string]int64 {
	out := map[string]int64{}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || !slices.Contains(fields, name) {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		if err == nil {
			out[name] = kb * 1024
		}
	}
	return out
}

// DirSize is the total size of the regular files under dir.
func DirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("size of %s: %w", dir, err)
	}
	return total, nil
}
