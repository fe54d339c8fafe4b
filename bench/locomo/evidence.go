package locomo

import (
	"regexp"
	"strconv"
	"strings"
)

// diaIDPattern is a well-formed turn id: "D", session number, ":", turn number.
var diaIDPattern = regexp.MustCompile(`^D([1-9][0-9]*):([1-9][0-9]*)$`)

// ParseDiaID splits a well-formed turn id such as "D12:3" into its session and
// turn numbers. ok is false for anything else ("D", "D10:", "D:11:26",
// "D8:6; D9:17", "D1:3 D1:4").
func ParseDiaID(s string) (session, turn int, ok bool) {
	m := diaIDPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, 0, false
	}
	session, err1 := strconv.Atoi(m[1])
	turn, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return session, turn, true
}

// Evidence is a question's evidence list after cleaning.
type Evidence struct {
	// IDs are the distinct well-formed evidence ids that name a turn of the
	// conversation, in the data's order.
	IDs []string
	// Malformed are the entries that are not one turn id ("D", "D:11:26",
	// "D8:6; D9:17"): they are dropped, never repaired.
	Malformed []string
	// Unknown are well-formed ids that name no turn of the conversation
	// ("D10:19" when session 10 has 16 turns): dropped too, since no system can
	// retrieve them.
	Unknown []string
}

// CleanEvidence validates a question's evidence entries against the set of the
// conversation's turn ids (nil turns accepts every well-formed id).
//
// Entries are kept only when they are exactly one well-formed id
// (surrounding blanks trimmed); duplicates are kept once. Malformed entries are
// dropped rather than guessed at, which is what the data set README's BM25
// anchors assume: a question whose every entry is malformed is left out
// (759 of the 762 category 1–4 questions remain).
func CleanEvidence(entries []string, turns map[string]bool) Evidence {
	var ev Evidence
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		s, t, ok := ParseDiaID(e)
		if !ok {
			ev.Malformed = append(ev.Malformed, e)
			continue
		}
		id := "D" + strconv.Itoa(s) + ":" + strconv.Itoa(t)
		if turns != nil && !turns[id] {
			ev.Unknown = append(ev.Unknown, id)
			continue
		}
		if !seen[id] {
			seen[id] = true
			ev.IDs = append(ev.IDs, id)
		}
	}
	return ev
}
