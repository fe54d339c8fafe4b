package synth

import (
	"slices"
)

// DegreeStats summarises how fact endpoints spread over entities: in a
// power-law graph a few hubs hold a large share of them.
type DegreeStats struct {
	Entities int `json:"entities"`
	// Endpoints is twice the number of facts.
	Endpoints int `json:"endpoints"`
	MaxDegree int `json:"max_degree"`
	// MedianDegree is the degree of the median entity.
	MedianDegree int `json:"median_degree"`
	// Top1Share and Top10Share are the shares of endpoints held by the 1%
	// and 10% highest-degree entities (a uniform draw gives about 0.01 and
	// 0.10 plus noise).
	Top1Share  float64 `json:"top1_share"`
	Top10Share float64 `json:"top10_share"`
}

// Degrees counts fact endpoints per entity over any number of namespaces.
// The zero value is ready to use.
type Degrees struct {
	counts []int
}

// Add counts the facts of m.
func (d *Degrees) Add(m Memory) {
	index := make(map[string]int, len(m.Entities))
	base := len(d.counts)
	for i, e := range m.Entities {
		index[e.ID] = base + i
	}
	d.counts = append(d.counts, make([]int, len(m.Entities))...)
	for _, f := range m.Facts {
		d.counts[index[f.SubjectID]]++
		d.counts[index[f.ObjectID]]++
	}
}

// Stats summarises the counts so far.
func (d *Degrees) Stats() DegreeStats {
	c := slices.Clone(d.counts)
	slices.SortFunc(c, func(a, b int) int { return b - a })
	s := DegreeStats{Entities: len(c)}
	if len(c) == 0 {
		return s
	}
	total := 0
	for _, x := range c {
		total += x
	}
	s.Endpoints, s.MaxDegree, s.MedianDegree = total, c[0], c[len(c)/2]
	share := func(frac float64) float64 {
		top := max(1, int(float64(len(c))*frac))
		sum := 0
		for _, x := range c[:top] {
			sum += x
		}
		return float64(sum) / float64(max(1, total))
	}
	s.Top1Share, s.Top10Share = share(0.01), share(0.10)
	return s
}
