package memory

import (
	"math"
	"time"

	"github.com/kgmem/kgmem"
)

// Prior names, as reported in Score.Priors.
const (
	// PriorCurrency prefers facts true now for questions about the present.
	PriorCurrency = "currency"
	// PriorTime prefers records within the time a question names.
	PriorTime = "time"
	// PriorWhen prefers, for "when…?" questions, records that carry a time.
	PriorWhen = "when"
)

// PriorScore is one prior's factor on a result's final score.
type PriorScore struct {
	// Prior is "currency", "time" or "when".
	Prior string `json:"prior"`
	// Factor multiplies the final score, in (0, 1].
	Factor float64 `json:"factor"`
}

// A prior weighs a loaded result by what its record says (status, validity,
// message time) rather than by how well it matches the query: it returns a
// factor in (0, 1] per record, 1 for the records it prefers. Factors never
// exceed 1, so hydration's early stop (pick) stays exact.
type prior interface {
	// Name is the prior's name in Score.Priors.
	Name() string
	fact(f kgmem.Fact) float64
	episode(ep kgmem.Episode) float64
	entity(ent kgmem.Entity) float64
}

// currencyPrior multiplies facts that are not true at `at` (ended,
// invalidated, not yet started) by factor.
type currencyPrior struct {
	at     time.Time
	factor float64
}

// Name implements prior.
func (currencyPrior) Name() string { return PriorCurrency }

func (p currencyPrior) fact(f kgmem.Fact) float64 {
	if currentAt(f, p.at) {
		return 1
	}
	return p.factor
}

func (currencyPrior) episode(kgmem.Episode) float64 { return 1 }
func (currencyPrior) entity(kgmem.Entity) float64   { return 1 }

// timePrior multiplies facts whose validity and episodes whose message time
// fall outside window (for messages, the window as reported: see
// timeWindow.reported) by factor; records that cannot be placed (no
// validity, no timestamp) get its square root, between the two.
type timePrior struct {
	window timeWindow
	// facts, when set, is the window facts are held to instead (an event's
	// eve or morrow).
	facts  timeWindow
	factor float64
}

// Name implements prior.
func (timePrior) Name() string { return PriorTime }

func (p timePrior) fact(f kgmem.Fact) float64 {
	span, known := factSpan(f)
	w := p.window
	if p.facts != (timeWindow{}) {
		w = p.facts
	}
	switch {
	case !known:
		return math.Sqrt(p.factor)
	case span.overlaps(w):
		return 1
	}
	return p.factor
}

func (p timePrior) episode(ep kgmem.Episode) float64 {
	switch {
	case ep.Timestamp.IsZero():
		return math.Sqrt(p.factor)
	case p.window.reported().contains(ep.Timestamp):
		return 1
	}
	return p.factor
}

// reportLag bounds how long after a span the messages that tell of it are
// still counted within it (see reported).
const reportLag = 31 * 24 * time.Hour

// reported is the span of message times that tell of events within w: a
// message reports what happened before it ("last week I…"), so the span
// runs on past w's end by w's length, at most reportLag.
func (w timeWindow) reported() timeWindow {
	if w.To.IsZero() {
		return w
	}
	lag := reportLag
	if !w.From.IsZero() {
		lag = min(lag, w.To.Sub(w.From))
	}
	return timeWindow{From: w.From, To: w.To.Add(lag)}
}

func (timePrior) entity(kgmem.Entity) float64 { return 1 }

// whenPrior multiplies, for a question asking when, episodes whose text
// states no time and facts with no validity by factor: the turn that says
// "yesterday" or "in 2019" dates the event, the one that does not cannot.
type whenPrior struct{ factor float64 }

// Name implements prior.
func (whenPrior) Name() string { return PriorWhen }

func (p whenPrior) fact(f kgmem.Fact) float64 {
	if _, known := factSpan(f); known {
		return 1
	}
	return p.factor
}

func (p whenPrior) episode(ep kgmem.Episode) float64 {
	if statesTime(ep.Content) {
		return 1
	}
	return p.factor
}

func (whenPrior) entity(kgmem.Entity) float64 { return 1 }

// applyPriors multiplies s.Final by each prior's factor f(p), recording the
// factors below 1 in s.Priors.
func applyPriors(s *Score, priors []prior, f func(prior) float64) {
	for _, p := range priors {
		if x := f(p); x < 1 {
			s.Final *= x
			s.Priors = append(s.Priors, PriorScore{Prior: p.Name(), Factor: x})
		}
	}
}

// priorFactor is the product of the factors recorded in s.Priors.
func (s Score) priorFactor() float64 {
	x := 1.0
	for _, p := range s.Priors {
		x *= p.Factor
	}
	return x
}
