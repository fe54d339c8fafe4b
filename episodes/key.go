package episodes

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// contentKey identifies a message that came without a client id by what it says,
// who said it and when, so posting it twice still stores it once.
func contentKey(role, name, content string, ts time.Time) string {
	h := sha256.New()
	for _, p := range []string{role, name, content, ts.UTC().Format(time.RFC3339Nano)} {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}
