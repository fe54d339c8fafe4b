package locomo

import (
	"testing"

	"github.com/kgmem/kgmem/internal/testenv"
)

// loadData loads the five LoCoMo conversations from KGMEM_LOCOMO_DATA; the
// test skips when the variable is unset.
func loadData(t testing.TB) []Conversation {
	t.Helper()
	convs, err := Load(testenv.LoCoMoData(t))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return convs
}
