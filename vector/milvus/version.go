package milvus

import (
	"strconv"
	"strings"
)

// partitionKeyUpsertFixed is the first server version whose Upsert routes rows
// by the partition key correctly. Older 2.3 servers hash the wrong field on
// upsert (milvus-io/milvus#30607, fixed by #30772/#30773 in February 2024), so
// rows land in partitions a namespace filter never reads; Open therefore
// leaves the partition key off on them. 2.4.0 is the first release certain to
// carry the fix.
var partitionKeyUpsertFixed = [3]int{2, 4, 0}

// parseVersion reads "v2.3.5-lite" or "2.4.1" as [2 3 5]; ok is false when the
// text has no major.minor.
func parseVersion(s string) (v [3]int, ok bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, "-+ "); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return v, false
	}
	for i := 0; i < len(parts) && i < 3; i++ {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// versionAtLeast reports whether v >= min.
func versionAtLeast(v, min [3]int) bool {
	for i := range v {
		if v[i] != min[i] {
			return v[i] > min[i]
		}
	}
	return true
}

// partitionKeySafe reports whether a server reporting version can hold a
// namespace partition key; an unreadable version is treated as unsafe.
func partitionKeySafe(version string) bool {
	v, ok := parseVersion(version)
	return ok && versionAtLeast(v, partitionKeyUpsertFixed)
}
