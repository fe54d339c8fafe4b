package milvus

import "testing"

func TestPartitionKeySafe(t *testing.T) {
	tests := []struct {
		version string
		want    bool
	}{
		{"v2.3.5-lite", false},
		{"v2.3.5", false},
		{"2.3.21", false},
		{"v2.4.0", true},
		{"v2.4.17", true},
		{"v2.5.4-gpu", true},
		{"v3.0", true},
		{"", false},
		{"unknown", false},
		{"v2", false},
	}
	for _, tt := range tests {
		if got := partitionKeySafe(tt.version); got != tt.want {
			t.Errorf("partitionKeySafe(%q) = %v, want %v", tt.version, got, tt.want)
		}
	}
}
