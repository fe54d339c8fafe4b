package chatlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// flexTime is a timestamp as chat logs write them: RFC 3339 text, or Unix
// seconds as a number or numeric string (ChatGPT's create_time is a float).
type flexTime struct{ time.Time }

// UnmarshalJSON implements json.Unmarshaler.
func (t *flexTime) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) || len(b) == 0 {
		return nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			return nil
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", time.DateOnly} {
			if v, err := time.Parse(layout, s); err == nil {
				if v.IsZero() {
					// The zero instant means "no time" to kgmem (stamped
					// now): reject it rather than replace it.
					return fmt.Errorf("timestamp %q is the zero time, which kgmem reserves for \"no time\"", s)
				}
				t.Time = v.UTC()
				return nil
			}
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return t.setUnix(f)
		}
		return fmt.Errorf("timestamp %q is neither RFC 3339 nor Unix seconds", s)
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("timestamp %s is neither RFC 3339 nor Unix seconds", b)
	}
	return t.setUnix(f)
}

func (t *flexTime) setUnix(f float64) error {
	if math.IsNaN(f) || f < 0 || f > 1e11 {
		return fmt.Errorf("timestamp %v is out of range for Unix seconds", f)
	}
	sec, frac := math.Modf(f)
	t.Time = time.Unix(int64(sec), int64(frac*1e9)).UTC().Truncate(time.Millisecond)
	return nil
}
