package memory

import (
	"strconv"
	"time"
)

// This file reads what a question says about time: an explicit time ("in
// 2021", "in May 2021", "before 2020", "last May", "two years ago", "last
// year"), its tense, and whether it asks when something happened. Relative
// expressions resolve against a reference instant that the search takes
// from the namespace's own timeline (its latest message or fact time), not
// from the wall clock: a conversation from 2023 asked "last year" means 2022.

// timeWindow is a span of world time [From, To); a zero end is open.
type timeWindow struct{ From, To time.Time }

// contains reports whether t falls within w.
func (w timeWindow) contains(t time.Time) bool {
	return (w.From.IsZero() || !t.Before(w.From)) && (w.To.IsZero() || t.Before(w.To))
}

// overlaps reports whether w and o share an instant.
func (w timeWindow) overlaps(o timeWindow) bool {
	return (w.To.IsZero() || o.From.IsZero() || o.From.Before(w.To)) &&
		(o.To.IsZero() || w.From.IsZero() || w.From.Before(o.To))
}

// timeExpr is a time expression of a question before resolution.
type timeExpr struct {
	// text is the words it was read from ("last may"), for explanations.
	text string
	// relative is true when it needs the reference instant.
	relative bool
	// resolve gives the window, given the reference (ignored when absolute).
	resolve func(ref time.Time) timeWindow
	// event, for "before/after <event>" ("before she moved to Berlin"), holds
	// the event's keywords; the search dates the event from the namespace
	// (event.go) and the window is everything before (after) it.
	event []string
	// after is true for "after <event>".
	after bool
}

// queryTime is what a question says about time.
type queryTime struct {
	// expr is the time the question names, nil for none.
	expr *timeExpr
	// past is true for a question in the past tense ("where did…", "where
	// was…", "used to", "has lived"): it asks about history as well.
	past bool
	// when is true for a question that asks for a time ("when did…",
	// "what year…", "how long ago…").
	when bool
}

// months maps month names and their common abbreviations to months.
var months = map[string]time.Month{
	"january": time.January, "jan": time.January, "february": time.February, "feb": time.February,
	"march": time.March, "mar": time.March, "april": time.April, "apr": time.April, "may": time.May,
	"june": time.June, "jun": time.June, "july": time.July, "jul": time.July, "august": time.August,
	"aug": time.August, "september": time.September, "sep": time.September, "sept": time.September,
	"october": time.October, "oct": time.October, "november": time.November, "nov": time.November,
	"december": time.December, "dec": time.December,
}

// numberWords reads small counts written as words.
var numberWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "couple": 2, "three": 3, "few": 3, "several": 3, "four": 4,
	"five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}

// pastMarkers are words that put a question in the past.
var pastMarkers = map[string]bool{
	"did": true, "was": true, "were": true, "had": true, "used": true, "ago": true, "previously": true,
	"formerly": true, "former": true, "earlier": true, "once": true, "originally": true, "before": true,
	"last": true, "past": true, "previous": true, "prior": true, "first": true,
}

// parseQueryTime reads the time expression, tense and "when" of a question.
func parseQueryTime(query string) queryTime {
	ws := queryWords(query)
	var qt queryTime
	for i, w := range ws {
		if pastMarkers[w] {
			qt.past = true
		}
		if w == "has" || w == "have" { // "has Ann lived", "have you worked"
			for _, next := range ws[i+1 : min(i+4, len(ws))] {
				if isParticiple(next) {
					qt.past = true
				}
			}
		}
	}
	qt.when = asksWhen(ws)
	// A span anchored on a date ("the week before August 3, 2023", "two
	// weeks before 11 August 2023") wins over the relative words in it.
	for i := 1; i < len(ws) && qt.expr == nil; i++ {
		qt.expr = anchoredSpanAt(ws, i)
	}
	for i := 0; i < len(ws) && qt.expr == nil; i++ {
		qt.expr = timeExprAt(ws, i)
	}
	return qt
}

// anchoredSpanAt reads "<span> before|after <date>" with ws[i] the
// preposition and the span ("the week", "last weekend", "two weeks", "a
// few days") in the three words before it: the span of that length just
// before (after) the date. It returns nil for anything else.
func anchoredSpanAt(ws []string, i int) *timeExpr {
	if ws[i] != "before" && ws[i] != "after" {
		return nil
	}
	d, _ := dateAt(ws, i+1, false)
	if d == nil {
		return nil
	}
	u, ok := unitOf(ws[i-1])
	if !ok {
		return nil
	}
	n := 1
	if i >= 2 {
		if c, ok := count(ws[i-2]); ok {
			n = c
		}
	}
	before := ws[i] == "before"
	return &timeExpr{text: ws[i-1] + " " + ws[i] + " " + d.text, relative: d.relative, resolve: func(ref time.Time) timeWindow {
		w := d.resolve(ref)
		if before {
			return timeWindow{From: addUnits(w.From, u, -n), To: w.From}
		}
		return timeWindow{From: w.To, To: addUnits(w.To, u, n)}
	}}
}

// isParticiple guesses a past participle ("lived", "been", "worked").
func isParticiple(w string) bool {
	switch w {
	case "been", "had", "done", "gone", "made", "taken", "held", "led", "run", "known", "seen", "met", "left", "taught", "won", "built", "bought":
		return true
	}
	return len(w) > 3 && w[len(w)-2:] == "ed"
}

// asksWhen reports a question that asks for a time.
func asksWhen(ws []string) bool {
	for i, w := range ws {
		next := ""
		if i+1 < len(ws) {
			next = ws[i+1]
		}
		switch {
		case w == "when":
			return true
		case (w == "what" || w == "which") && (next == "year" || next == "month" || next == "date" || next == "day" || next == "time" || next == "week"):
			return true
		case w == "how" && next == "long":
			return true
		}
	}
	return false
}

// timeExprAt reads a time expression starting at ws[i], or returns nil.
func timeExprAt(ws []string, i int) *timeExpr {
	w := ws[i]
	at := func(j int) string {
		if j < len(ws) {
			return ws[j]
		}
		return ""
	}
	switch w {
	case "before", "until", "after", "since", "between", "from":
		d, n := dateAt(ws, i+1, false)
		if d == nil {
			if w == "before" || w == "after" {
				return eventExpr(ws[i+1:], w == "after")
			}
			return nil
		}
		text := w + " " + d.text
		switch w {
		case "before", "until":
			return derive(d, text, func(x timeWindow) timeWindow { return timeWindow{To: choose(w == "until", x.To, x.From)} })
		case "after":
			return derive(d, text, func(x timeWindow) timeWindow { return timeWindow{From: x.To} })
		case "since", "from":
			return derive(d, text, func(x timeWindow) timeWindow { return timeWindow{From: x.From} })
		}
		// between X and Y
		if at(i+1+n) != "and" {
			return nil
		}
		e, _ := dateAt(ws, i+2+n, false)
		if e == nil {
			return nil
		}
		return &timeExpr{text: text + " and " + e.text, relative: d.relative || e.relative, resolve: func(ref time.Time) timeWindow {
			return timeWindow{From: d.resolve(ref).From, To: e.resolve(ref).To}
		}}
	case "last", "past", "previous", "this":
		unit, ok := unitOf(at(i + 1))
		if ok {
			shift := -1
			if w == "this" {
				shift = 0
			}
			return &timeExpr{text: w + " " + at(i+1), relative: true, resolve: func(ref time.Time) timeWindow { return unitWindow(ref, unit, shift) }}
		}
		if m, ok := months[at(i+1)]; ok {
			strict := w != "this"
			return &timeExpr{text: w + " " + at(i+1), relative: true, resolve: func(ref time.Time) timeWindow { return latestMonth(ref, m, strict) }}
		}
		// "in the last two years", "the past three months": up to the reference.
		if n, ok := count(at(i + 1)); ok && w != "this" {
			if unit, ok := unitOf(at(i + 2)); ok {
				return &timeExpr{text: w + " " + at(i+1) + " " + at(i+2), relative: true, resolve: func(ref time.Time) timeWindow {
					return timeWindow{From: addUnits(ref, unit, -n), To: ref.Add(time.Nanosecond)}
				}}
			}
		}
		return nil
	case "yesterday", "today":
		shift := 0
		if w == "yesterday" {
			shift = -1
		}
		return &timeExpr{text: w, relative: true, resolve: func(ref time.Time) timeWindow { return unitWindow(ref, unitDay, shift) }}
	}
	// "two years ago", "a month ago"
	if n, ok := count(w); ok {
		if unit, ok := unitOf(at(i + 1)); ok && at(i+2) == "ago" {
			return &timeExpr{text: w + " " + at(i+1) + " ago", relative: true, resolve: func(ref time.Time) timeWindow { return unitWindow(ref, unit, -n) }}
		}
	}
	d, _ := dateAt(ws, i, i > 0 && isDatePreposition(ws[i-1]))
	return d
}

// eventExpr reads "before/after <event>": the event's content words (stop
// words dropped), nil when there are none ("before that").
func eventExpr(rest []string, after bool) *timeExpr {
	var kws []string
	for _, w := range rest {
		if !isQueryStopWord(w) {
			kws = append(kws, w)
		}
	}
	if len(kws) == 0 {
		return nil
	}
	text := "before"
	if after {
		text = "after"
	}
	for _, w := range rest {
		text += " " + w
	}
	return &timeExpr{text: text, relative: true, event: kws, after: after}
}

// choose returns a when cond holds, else b.
func choose(cond bool, a, b time.Time) time.Time {
	if cond {
		return a
	}
	return b
}

// derive maps a date expression's window to another (before/after/since).
func derive(d *timeExpr, text string, f func(timeWindow) timeWindow) *timeExpr {
	return &timeExpr{text: text, relative: d.relative, resolve: func(ref time.Time) timeWindow { return f(d.resolve(ref)) }}
}

// isDatePreposition reports words after which a bare month is a date ("in
// May") rather than the modal verb ("may").
func isDatePreposition(w string) bool {
	switch w {
	case "in", "on", "of", "during", "early", "late", "mid", "by", "around", "through", "throughout":
		return true
	}
	return false
}

// dateAt reads a calendar date at ws[i]: a year ("2021"), a month and year
// ("may 2021", "may of 2021"), a day, month and year in either order ("8
// may 2023", "may 8 2023"), or a month alone ("in may": the latest May up
// to the reference). A month alone counts only after a date preposition
// (monthOK) or before a day or year, so the verb "may" is no date. It
// returns the expression and how many words it used.
func dateAt(ws []string, i int, monthOK bool) (*timeExpr, int) {
	at := func(j int) string {
		if j < len(ws) {
			return ws[j]
		}
		return ""
	}
	if y, ok := year(at(i)); ok {
		from := time.Date(y, time.January, 1, 0, 0, 0, 0, time.UTC)
		return absolute(at(i), from, from.AddDate(1, 0, 0)), 1
	}
	day, dayFirst := dayOf(at(i))
	j := i
	if dayFirst {
		j++
	}
	m, ok := months[at(j)]
	if !ok {
		return nil, 0
	}
	k := j + 1
	if !dayFirst {
		if d, ok := dayOf(at(k)); ok {
			day, k = d, k+1
		}
	}
	if at(k) == "of" {
		k++
	}
	text := func(end int) string {
		s := ""
		for n := i; n < end; n++ {
			if n > i {
				s += " "
			}
			s += ws[n]
		}
		return s
	}
	if y, ok := year(at(k)); ok {
		if day > 0 {
			from := time.Date(y, m, day, 0, 0, 0, 0, time.UTC)
			return absolute(text(k+1), from, from.AddDate(0, 0, 1)), k + 1 - i
		}
		from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		return absolute(text(k+1), from, from.AddDate(0, 1, 0)), k + 1 - i
	}
	if at(k-1) == "of" {
		k--
	}
	if day == 0 && !monthOK {
		return nil, 0
	}
	return &timeExpr{text: text(k), relative: true, resolve: func(ref time.Time) timeWindow {
		w := latestMonth(ref, m, false)
		if day > 0 {
			from := time.Date(w.From.Year(), m, day, 0, 0, 0, 0, time.UTC)
			return timeWindow{From: from, To: from.AddDate(0, 0, 1)}
		}
		return w
	}}, k - i
}

// absolute is a fixed window.
func absolute(text string, from, to time.Time) *timeExpr {
	return &timeExpr{text: text, resolve: func(time.Time) timeWindow { return timeWindow{From: from, To: to} }}
}

// year reads a year from 1900 to 2199.
func year(w string) (int, bool) {
	if len(w) != 4 {
		return 0, false
	}
	y, err := strconv.Atoi(w)
	return y, err == nil && y >= 1900 && y < 2200
}

// dayOf reads a day of the month ("8", "8th", "21st").
func dayOf(w string) (int, bool) {
	for _, suffix := range []string{"st", "nd", "rd", "th"} {
		if len(w) > 2 && w[len(w)-2:] == suffix {
			w = w[:len(w)-2]
			break
		}
	}
	if len(w) == 0 || len(w) > 2 {
		return 0, false
	}
	d, err := strconv.Atoi(w)
	return d, err == nil && d >= 1 && d <= 31
}

// count reads a small count, as digits or a word.
func count(w string) (int, bool) {
	if n, ok := numberWords[w]; ok {
		return n, true
	}
	n, err := strconv.Atoi(w)
	return n, err == nil && n > 0 && n < 1000
}

// unit is a calendar unit of a relative time expression.
type unit int

const (
	unitDay unit = iota
	unitWeek
	unitMonth
	unitYear
)

// unitOf reads a unit word, singular or plural.
func unitOf(w string) (unit, bool) {
	switch w {
	case "day", "days":
		return unitDay, true
	case "week", "weeks", "weekend":
		return unitWeek, true
	case "month", "months":
		return unitMonth, true
	case "year", "years":
		return unitYear, true
	}
	return 0, false
}

// addUnits moves t by n units.
func addUnits(t time.Time, u unit, n int) time.Time {
	switch u {
	case unitDay:
		return t.AddDate(0, 0, n)
	case unitWeek:
		return t.AddDate(0, 0, 7*n)
	case unitMonth:
		return t.AddDate(0, n, 0)
	}
	return t.AddDate(n, 0, 0)
}

// unitWindow is the calendar unit holding ref moved by shift units: the
// year before ref's for (unitYear, -1). Weeks start on Monday.
func unitWindow(ref time.Time, u unit, shift int) timeWindow {
	ref = ref.UTC()
	var start time.Time
	switch u {
	case unitDay:
		start = time.Date(ref.Year(), ref.Month(), ref.Day(), 0, 0, 0, 0, time.UTC)
	case unitWeek:
		day := time.Date(ref.Year(), ref.Month(), ref.Day(), 0, 0, 0, 0, time.UTC)
		start = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	case unitMonth:
		start = time.Date(ref.Year(), ref.Month(), 1, 0, 0, 0, 0, time.UTC)
	default:
		start = time.Date(ref.Year(), time.January, 1, 0, 0, 0, 0, time.UTC)
	}
	from := addUnits(start, u, shift)
	return timeWindow{From: from, To: addUnits(from, u, 1)}
}

// latestMonth is the latest month m that starts no later than ref's month
// (strictly before it when strict: "last May" asked in May is a year ago).
func latestMonth(ref time.Time, m time.Month, strict bool) timeWindow {
	ref = ref.UTC()
	y := ref.Year()
	if m > ref.Month() || (strict && m == ref.Month()) {
		y--
	}
	from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	return timeWindow{From: from, To: from.AddDate(0, 1, 0)}
}

// statesTime reports whether a text names a time: a date, a weekday, a
// relative day ("yesterday", "last week", "two years ago"): what dates the
// event a message tells of.
func statesTime(text string) bool {
	ws := queryWords(text)
	for i, w := range ws {
		switch w {
		case "yesterday", "today", "tonight", "tomorrow", "ago", "monday", "tuesday", "wednesday", "thursday",
			"friday", "saturday", "sunday", "weekend", "recently", "lately":
			return true
		case "last", "next", "this", "past":
			if i+1 < len(ws) {
				if _, ok := unitOf(ws[i+1]); ok {
					return true
				}
				if _, ok := months[ws[i+1]]; ok && ws[i+1] != "may" {
					return true
				}
			}
		}
		if _, ok := year(w); ok {
			return true
		}
		if m, ok := months[w]; ok && len(w) > 3 || (m == time.May && i > 0 && isDatePreposition(ws[i-1])) {
			return true
		}
	}
	return false
}
