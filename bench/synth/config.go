package synth

import (
	"fmt"
	"math"
	"time"

	"github.com/kgmem/kgmem"
)

// Version names the generator's algorithm and word lists. A data directory
// built by another version is not reused.
const Version = 1

// Config describes one synthetic memory. Equal configs give equal memories:
// the same ids, texts and times, byte for byte.
type Config struct {
	// Seed selects the memory.
	Seed uint64 `json:"seed"`
	// Facts, Entities and Namespaces are the totals over the whole memory.
	Facts      int `json:"facts"`
	Entities   int `json:"entities"`
	Namespaces int `json:"namespaces"`
	// Prefix is the first namespace segment; namespace i is "<Prefix>/n<i>".
	Prefix string `json:"prefix"`
	// FactsPerEpisode is how many facts one message (episode) states.
	FactsPerEpisode int `json:"facts_per_episode"`
	// Skew shapes namespace sizes: namespace i gets a share of the facts
	// proportional to 1/(i+10)^Skew. 0 gives every namespace the same size;
	// 1 (the default) gives the largest about 100 times the smallest, as
	// a few heavy users next to many light ones.
	Skew float64 `json:"skew"`
	// UniformShare is the probability that a fact's endpoint is drawn
	// uniformly; otherwise it is drawn by preferential attachment
	// (proportional to the entity's degree so far), which gives the
	// power-law degree distribution.
	UniformShare float64 `json:"uniform_share"`
	// HistoryShare is the share of facts later invalidated (kept as history).
	HistoryShare float64 `json:"history_share"`
	// Start and Span are the year the memory covers: messages are said
	// uniformly within it, so decay separates old from recent.
	Start time.Time     `json:"start"`
	Span  time.Duration `json:"span"`
}

// DefaultConfig is issue #7's target: 1,000,000 facts over 200,000 entities
// in 1,000 namespaces, over the year 2025.
func DefaultConfig() Config {
	return Config{
		Seed: 1, Facts: 1_000_000, Entities: 200_000, Namespaces: 1000, Prefix: "synth",
		FactsPerEpisode: 3, Skew: 1, UniformShare: 0.2, HistoryShare: 0.03,
		Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Span: 365 * 24 * time.Hour,
	}
}

// Validate checks c, naming the first bad field.
func (c Config) Validate() error {
	switch {
	case c.Namespaces < 1:
		return kgmem.Invalidf("namespaces", "must be at least 1, got %d", c.Namespaces)
	case c.Facts < c.Namespaces:
		return kgmem.Invalidf("facts", "must be at least one per namespace (%d), got %d", c.Namespaces, c.Facts)
	case c.Entities < 2*c.Namespaces:
		return kgmem.Invalidf("entities", "must be at least two per namespace (%d), got %d", 2*c.Namespaces, c.Entities)
	case c.FactsPerEpisode < 1:
		return kgmem.Invalidf("facts_per_episode", "must be at least 1, got %d", c.FactsPerEpisode)
	case c.Skew < 0 || c.Skew > 4 || math.IsNaN(c.Skew):
		return kgmem.Invalidf("skew", "must be within 0..4, got %v", c.Skew)
	case !(c.UniformShare >= 0 && c.UniformShare <= 1):
		return kgmem.Invalidf("uniform_share", "must be within 0..1, got %v", c.UniformShare)
	case !(c.HistoryShare >= 0 && c.HistoryShare <= 1):
		return kgmem.Invalidf("history_share", "must be within 0..1, got %v", c.HistoryShare)
	case c.Start.IsZero():
		return kgmem.Invalidf("start", "is required")
	case c.Span < 60*24*time.Hour:
		return kgmem.Invalidf("span", "must be at least 60 days, got %s", c.Span)
	}
	if _, err := kgmem.ParseNamespace(c.namespace(c.Namespaces - 1)); err != nil {
		return kgmem.Invalidf("prefix", "%q does not make valid namespaces: %v", c.Prefix, err)
	}
	return nil
}

// namespace is the name of namespace i.
func (c Config) namespace(i int) string { return fmt.Sprintf("%s/n%04d", c.Prefix, i) }

// NamespacePlan is the size of one namespace.
type NamespacePlan struct {
	Index     int             `json:"index"`
	Namespace kgmem.Namespace `json:"namespace"`
	Facts     int             `json:"facts"`
	Entities  int             `json:"entities"`
}

// Plan splits the totals over the namespaces by the Skew weights, exactly
// (largest remainder), with at least one fact and two entities each.
func (c Config) Plan() []NamespacePlan {
	w := make([]float64, c.Namespaces)
	for i := range w {
		w[i] = math.Pow(float64(i+10), -c.Skew)
	}
	facts := apportion(c.Facts, w, 1)
	entities := apportion(c.Entities, w, 2)
	plan := make([]NamespacePlan, c.Namespaces)
	for i := range plan {
		plan[i] = NamespacePlan{Index: i, Namespace: kgmem.Namespace(c.namespace(i)), Facts: facts[i], Entities: entities[i]}
	}
	return plan
}

// apportion splits total into integers proportional to w, each at least
// floor, summing to total (largest-remainder method; ties to the lower index).
func apportion(total int, w []float64, floor int) []int {
	out := make([]int, len(w))
	rest := total - floor*len(w)
	var sum float64
	for _, x := range w {
		sum += x
	}
	type rem struct {
		i    int
		frac float64
	}
	rems := make([]rem, len(w))
	given := 0
	for i, x := range w {
		exact := float64(rest) * x / sum
		out[i] = floor + int(exact)
		given += int(exact)
		rems[i] = rem{i, exact - math.Floor(exact)}
	}
	// Hand out what rounding down left, largest remainders first.
	sortRems(rems, func(a, b rem) bool { return a.frac > b.frac || (a.frac == b.frac && a.i < b.i) })
	for k := 0; k < rest-given; k++ {
		out[rems[k%len(rems)].i]++
	}
	return out
}
