package locomo

import (
	"strings"
	"time"

	"github.com/kgmem/kgmem"
)

// sessionTimeLayout is LoCoMo's session date format: "1:56 pm on 8 May, 2023".
const sessionTimeLayout = "3:04 pm on 2 January, 2006"

// ParseSessionTime parses a session date such as "1:56 pm on 8 May, 2023".
// The data carries no zone, so the time is taken as UTC. Case and surrounding
// blanks do not matter ("1:56 PM on 8 may, 2023" parses too).
func ParseSessionTime(s string) (time.Time, error) {
	norm := strings.Join(strings.Fields(s), " ")
	norm = strings.ToLower(norm)
	// Month names must be capitalised for time.Parse; am/pm stay lower case.
	fields := strings.Fields(norm)
	for i, f := range fields {
		if i > 0 && fields[i-1] != "on" && strings.HasSuffix(f, ",") {
			fields[i] = strings.ToUpper(f[:1]) + f[1:]
		}
	}
	norm = strings.Join(fields, " ")
	t, err := time.Parse(sessionTimeLayout, norm)
	if err != nil {
		return time.Time{}, kgmem.Invalidf("date_time", "%q is not like %q", s, "1:56 pm on 8 May, 2023")
	}
	return t.UTC(), nil
}
