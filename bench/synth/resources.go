package synth

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// Resources is the process's memory use at one moment.
type Resources struct {
	// MaxRSSBytes is the peak resident set size (getrusage ru_maxrss).
	MaxRSSBytes int64 `json:"max_rss_bytes"`
	// HWMBytes is the peak resident set size the kernel reports in
	// /proc/self/status (VmHWM); 0 where there is no /proc.
	HWMBytes int64 `json:"vm_hwm_bytes"`
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
	r.HWMBytes = vmHWM()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.HeapInuseBytes, r.HeapSysBytes, r.NumGC = ms.HeapInuse, ms.HeapSys, ms.NumGC
	return r
}

// vmHWM reads VmHWM from /proc/self/status, in bytes (0 when unavailable).
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
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
