package locomo

import (
	"errors"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

func TestParseSessionTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"1:56 pm on 8 May, 2023", time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)},
		{"10:37 am on 27 June, 2023", time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC)},
		{"12:09 am on 13 September, 2023", time.Date(2023, 9, 13, 0, 9, 0, 0, time.UTC)},
		{"12:00 pm on 1 January, 2022", time.Date(2022, 1, 1, 12, 0, 0, 0, time.UTC)},
		{"  7:31 PM on 21 january,   2022 ", time.Date(2022, 1, 21, 19, 31, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		got, err := ParseSessionTime(tt.in)
		if err != nil {
			t.Errorf("ParseSessionTime(%q): %v", tt.in, err)
			continue
		}
		if !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseSessionTime(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseSessionTimeRejects(t *testing.T) {
	for _, in := range []string{
		"",
		"yesterday",
		"13:56 pm on 8 May, 2023",
		"1:56 pm on 31 February, 2023",
		"1:56 pm 8 May 2023",
		"2023-05-08T13:56:00Z",
	} {
		_, err := ParseSessionTime(in)
		if !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("ParseSessionTime(%q) error = %v, want ErrInvalid", in, err)
		}
	}
}

// Every session date of the shipped data parses, and sessions are in time order.
func TestDataSessionTimes(t *testing.T) {
	for _, c := range loadData(t) {
		for i, s := range c.Sessions {
			if s.Time.IsZero() {
				t.Errorf("%s session %d: zero time from %q", c.ID, s.Number, s.DateTime)
			}
			if i > 0 && s.Time.Before(c.Sessions[i-1].Time) {
				t.Errorf("%s session %d (%s) is before session %d (%s)", c.ID, s.Number, s.Time, c.Sessions[i-1].Number, c.Sessions[i-1].Time)
			}
		}
	}
}
