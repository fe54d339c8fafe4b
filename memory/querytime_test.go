package memory

import (
	"strings"
	"testing"
	"time"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// TestParseQueryTime pins what a question says about time: the window of
// its time expression resolved against a reference instant (the namespace's
// timeline end), its tense and whether it asks when.
func TestParseQueryTime(t *testing.T) {
	ref := time.Date(2023, time.June, 14, 15, 0, 0, 0, time.UTC) // a Wednesday
	tests := []struct {
		query    string
		window   *timeWindow // nil: no time expression
		relative bool
		past     bool
		when     bool
	}{
		{"Where does Alice live?", nil, false, false, false},
		{"Where did Kim live in 2021?", &timeWindow{day(2021, 1, 1), day(2022, 1, 1)}, false, true, false},
		{"Where did Kim live in May 2021?", &timeWindow{day(2021, 5, 1), day(2021, 6, 1)}, false, true, false},
		{"What happened on 8 May 2023?", &timeWindow{day(2023, 5, 8), day(2023, 5, 9)}, false, false, false},
		{"What happened on May 8th, 2023?", &timeWindow{day(2023, 5, 8), day(2023, 5, 9)}, false, false, false},
		{"Where was Bo working in March of 2019?", &timeWindow{day(2019, 3, 1), day(2019, 4, 1)}, false, true, false},
		{"What did Ann do last May?", &timeWindow{day(2023, 5, 1), day(2023, 6, 1)}, true, true, false},
		{"What did Ann do last June?", &timeWindow{day(2022, 6, 1), day(2022, 7, 1)}, true, true, false},
		{"What did Ann do in April?", &timeWindow{day(2023, 4, 1), day(2023, 5, 1)}, true, true, false},
		{"What did Ann do in July?", &timeWindow{day(2022, 7, 1), day(2022, 8, 1)}, true, true, false},
		{"Where did Ann work two years ago?", &timeWindow{day(2021, 1, 1), day(2022, 1, 1)}, true, true, false},
		{"Where did Ann travel 3 months ago?", &timeWindow{day(2023, 3, 1), day(2023, 4, 1)}, true, true, false},
		{"What did Ann buy a week ago?", &timeWindow{day(2023, 6, 5), day(2023, 6, 12)}, true, true, false},
		{"Who did Ann meet last year?", &timeWindow{day(2022, 1, 1), day(2023, 1, 1)}, true, true, false},
		{"What is Ann reading this year?", &timeWindow{day(2023, 1, 1), day(2024, 1, 1)}, true, false, false},
		{"What did Ann cook last week?", &timeWindow{day(2023, 6, 5), day(2023, 6, 12)}, true, true, false},
		{"What did Ann cook yesterday?", &timeWindow{day(2023, 6, 13), day(2023, 6, 14)}, true, true, false},
		{"Where did Ann live before 2020?", &timeWindow{To: day(2020, 1, 1)}, false, true, false},
		{"Where has Ann lived after 2020?", &timeWindow{From: day(2021, 1, 1)}, false, true, false},
		{"Where does Ann live since 2020?", &timeWindow{From: day(2020, 1, 1)}, false, false, false},
		{"Where did Ann work between 2018 and 2020?", &timeWindow{day(2018, 1, 1), day(2021, 1, 1)}, false, true, false},
		{"What did Ann learn in the last two years?", &timeWindow{From: ref.AddDate(-2, 0, 0), To: ref.Add(time.Nanosecond)}, true, true, false},
		{"When did Caroline go to the support group?", nil, false, true, true},
		{"What year did Ann move to Oslo?", nil, false, true, true},
		{"How long has Ann lived in Oslo?", nil, false, true, true},
		{"Where has Ann worked?", nil, false, true, false},
		{"Where was Ann born?", nil, false, true, false},
		{"Where may Ann go hiking?", nil, false, false, false}, // "may" the verb, no date
		{"Is Ann still at Acme?", nil, false, false, false},
		{"Where does Ann work in 2024?", &timeWindow{day(2024, 1, 1), day(2025, 1, 1)}, false, false, false},
		{"What did Ann do 100 days ago?", &timeWindow{ref.AddDate(0, 0, -100).Truncate(24 * time.Hour), ref.AddDate(0, 0, -99).Truncate(24 * time.Hour)}, true, true, false},
		{"What did Ann do 5000 days ago?", nil, false, true, false},
		{"Room 1234 number 42", nil, false, false, false},
		{"Have you been there before?", nil, false, true, false},
		{"What did John do the week before August 3, 2023?", &timeWindow{day(2023, 7, 27), day(2023, 8, 3)}, false, true, false},
		{"What is the puppy she got two weeks before August 11, 2023?", &timeWindow{day(2023, 7, 28), day(2023, 8, 11)}, false, true, false},
		{"What did Maria do last weekend before April 10, 2023?", &timeWindow{day(2023, 4, 3), day(2023, 4, 10)}, false, true, false},
		{"What did Ann do the month after 2 May 2023?", &timeWindow{day(2023, 5, 3), day(2023, 6, 3)}, false, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			qt := parseQueryTime(tc.query)
			if qt.past != tc.past || qt.when != tc.when {
				t.Errorf("past %t when %t, want %t %t", qt.past, qt.when, tc.past, tc.when)
			}
			switch {
			case tc.window == nil && qt.expr != nil:
				t.Fatalf("read a time expression %q, want none", qt.expr.text)
			case tc.window != nil && qt.expr == nil:
				t.Fatalf("read no time expression, want %v", *tc.window)
			case tc.window == nil:
				return
			}
			if qt.expr.relative != tc.relative {
				t.Errorf("relative %t, want %t", qt.expr.relative, tc.relative)
			}
			if got := qt.expr.resolve(ref); !got.From.Equal(tc.window.From) || !got.To.Equal(tc.window.To) {
				t.Errorf("%q resolves to [%v, %v), want [%v, %v)", qt.expr.text, got.From, got.To, tc.window.From, tc.window.To)
			}
		})
	}
}

// TestTimeWindow pins containment and overlap with open ends.
func TestTimeWindow(t *testing.T) {
	y2021 := timeWindow{day(2021, 1, 1), day(2022, 1, 1)}
	tests := []struct {
		name string
		a, b timeWindow
		want bool
	}{
		{"inside", y2021, timeWindow{day(2021, 3, 1), day(2021, 4, 1)}, true},
		{"ends when it starts", y2021, timeWindow{day(2019, 1, 1), day(2021, 1, 1)}, false},
		{"starts when it ends", y2021, timeWindow{From: day(2022, 1, 1)}, false},
		{"open start", y2021, timeWindow{To: day(2021, 6, 1)}, true},
		{"open end", y2021, timeWindow{From: day(2020, 6, 1)}, true},
		{"all time", y2021, timeWindow{}, true},
		{"before", timeWindow{To: day(2020, 1, 1)}, timeWindow{From: day(2020, 1, 1)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.overlaps(tc.b); got != tc.want {
				t.Errorf("overlaps = %t, want %t", got, tc.want)
			}
			if got := tc.b.overlaps(tc.a); got != tc.want {
				t.Errorf("overlaps is not symmetric")
			}
		})
	}
	if !y2021.contains(day(2021, 1, 1)) || y2021.contains(day(2022, 1, 1)) {
		t.Error("a window holds its start, not its end")
	}
}

// TestStatesTime pins which message texts date an event.
func TestStatesTime(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"I went to the support group yesterday.", true},
		{"We moved to Oslo two years ago.", true},
		{"Last week I painted a sunrise.", true},
		{"I ran a charity race on Saturday.", true},
		{"I graduated in 2019.", true},
		{"It was freezing in January.", true},
		{"We met in May.", true},
		{"You may be right.", false},
		{"I love painting sunrises.", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := statesTime(tc.text); got != tc.want {
			t.Errorf("statesTime(%q) = %t, want %t", tc.text, got, tc.want)
		}
	}
}

// FuzzParseQueryTime checks that any query parses without panicking and
// that a resolved window never ends before it starts.
func FuzzParseQueryTime(f *testing.F) {
	for _, s := range []string{"in 2021", "last may", "between 2020 and 2019", "3 weeks ago", "before", "may of", "8 may", "31st february 2023"} {
		f.Add(s)
	}
	ref := time.Date(2023, 6, 14, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, q string) {
		qt := parseQueryTime(q)
		if qt.expr == nil {
			return
		}
		w := qt.expr.resolve(ref)
		if !w.From.IsZero() && !w.To.IsZero() && w.To.Before(w.From) && !strings.HasPrefix(qt.expr.text, "between") {
			t.Errorf("%q (%q) resolves to [%v, %v)", q, qt.expr.text, w.From, w.To)
		}
	})
}
