package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
)

// Memory is one generated namespace: everything a ChangeSet writes. Facts
// carry SubjectName and ObjectName (stores ignore them on write), so
// queries can be drawn from a Memory without reading a store.
type Memory struct {
	Plan     NamespacePlan
	Entities []kgmem.Entity
	Episodes []kgmem.Episode
	Facts    []kgmem.Fact
	Mentions []kgmem.Mention
}

// Records counts the searchable records (each gets one vector).
func (m Memory) Records() int { return len(m.Entities) + len(m.Episodes) + len(m.Facts) }

// Generator builds the namespaces of one Config. Each namespace is drawn
// from its own random stream, derived from the seed and its index, so
// namespaces can be generated in any order and in parallel.
type Generator struct {
	cfg   Config
	plan  []NamespacePlan
	model decay.Model
}

// NewGenerator checks cfg and returns its generator.
func NewGenerator(cfg Config) (*Generator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("synth config: %w", err)
	}
	return &Generator{cfg: cfg, plan: cfg.Plan(), model: decay.DefaultModel()}, nil
}

// Config returns the generator's config.
func (g *Generator) Config() Config { return g.cfg }

// Plan returns the namespace sizes.
func (g *Generator) Plan() []NamespacePlan { return slices.Clone(g.plan) }

// rng returns the random stream of namespace i for one purpose.
func (g *Generator) rng(i int, purpose uint64) *rand.Rand {
	return rand.New(rand.NewPCG(g.cfg.Seed, uint64(i)<<8|purpose))
}

// Namespace generates namespace i (0 ≤ i < Config.Namespaces).
func (g *Generator) Namespace(i int) Memory {
	p := g.plan[i]
	rng := g.rng(i, 1)
	m := Memory{Plan: p}
	m.Entities = g.entities(rng, p)
	g.facts(rng, &m)
	return m
}

// entities draws p.Entities entities with names unique (normalised) in the namespace.
func (g *Generator) entities(rng *rand.Rand, p NamespacePlan) []kgmem.Entity {
	seen := make(map[string]bool, p.Entities)
	out := make([]kgmem.Entity, 0, p.Entities)
	for len(out) < p.Entities {
		typ := pickType(rng)
		name, aliases := entityName(rng, typ)
		for try := 2; seen[kgmem.NormalizeName(name)]; try++ {
			if try < 12 {
				name, aliases = entityName(rng, typ)
			} else {
				name += " " + strconv.Itoa(try)
			}
		}
		seen[kgmem.NormalizeName(name)] = true
		created := g.cfg.Start.Add(time.Duration(rng.Int64N(int64(30 * 24 * time.Hour)))).Truncate(time.Second)
		out = append(out, kgmem.Entity{
			ID: kgmem.EntityID(p.Namespace, name), Namespace: p.Namespace, Name: name, Aliases: aliases, Type: typ,
			CreatedAt: created, UpdatedAt: created, Decay: g.model.Initial(0, created),
		})
	}
	return out
}

// pickType draws an entity type by the entityTypes shares.
func pickType(rng *rand.Rand) string {
	x := rng.Float64()
	for _, t := range entityTypes {
		if x < t.share {
			return t.name
		}
		x -= t.share
	}
	return entityTypes[0].name
}

// entityName draws a name of type typ and the aliases it goes by.
func entityName(rng *rand.Rand, typ string) (string, []string) {
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	switch typ {
	case kgmem.TypePerson:
		first := pick(firstNames)
		name := first + " " + pick(lastNames)
		if rng.IntN(10) < 4 {
			return name, []string{first}
		}
		return name, nil
	case kgmem.TypeOrganization:
		stem := pick(orgStems)
		return stem + " " + pick(orgSuffixes), []string{stem}
	case kgmem.TypeTeam:
		return title(pick(topics)) + " " + pick([]string{"team", "squad", "guild", "crew"}), nil
	case kgmem.TypeProject:
		code := pick(codenames)
		return code + " " + pick(topics) + " " + pick([]string{"migration", "rewrite", "pilot", "launch", "study"}), []string{"Project " + code}
	case kgmem.TypePlace:
		q := pick(placeQualifiers)
		if q == "" {
			return pick(places), nil
		}
		return q + " " + pick(places), nil
	case kgmem.TypeEvent:
		return title(pick(topics)) + " " + pick(eventKinds) + " " + strconv.Itoa(2024+rng.IntN(2)), nil
	default: // Concept
		return pick([]string{"", "applied ", "modern ", "beginner ", "competitive ", "open-source "}) + pick(topics) +
			pick([]string{"", " basics", " research", " history", " community"}), nil
	}
}

// facts draws the namespace's facts by preferential attachment, groups them
// into episodes (messages stating FactsPerEpisode facts each) and links
// each episode to the entities it mentions.
func (g *Generator) facts(rng *rand.Rand, m *Memory) {
	n := len(m.Entities)
	ns := m.Plan.Namespace
	ends := make([]int32, 0, 2*m.Plan.Facts)
	endpoint := func() int {
		if len(ends) == 0 || rng.Float64() < g.cfg.UniformShare {
			return rng.IntN(n)
		}
		return int(ends[rng.IntN(len(ends))])
	}
	var persons []int
	for i, e := range m.Entities {
		if e.Type == kgmem.TypePerson {
			persons = append(persons, i)
		}
	}
	episodes := (m.Plan.Facts + g.cfg.FactsPerEpisode - 1) / g.cfg.FactsPerEpisode
	// Message times: uniform after the first month (when the entities
	// appear), sorted so threads read in order.
	first := g.cfg.Start.Add(30 * 24 * time.Hour)
	window := int64(g.cfg.Span - 30*24*time.Hour)
	times := make([]time.Time, episodes)
	for i := range times {
		times[i] = first.Add(time.Duration(rng.Int64N(window))).Truncate(time.Second)
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	end := g.cfg.Start.Add(g.cfg.Span)

	m.Facts = make([]kgmem.Fact, 0, m.Plan.Facts)
	m.Episodes = make([]kgmem.Episode, 0, episodes)
	for e := range episodes {
		at := times[e]
		thread, msg := fmt.Sprintf("thread-%03d", e/25), fmt.Sprintf("m%06d", e)
		epID := kgmem.EpisodeID(ns, thread, msg)
		var content strings.Builder
		var speaker string
		mentioned := map[int]bool{}
		for f := e * g.cfg.FactsPerEpisode; f < min((e+1)*g.cfg.FactsPerEpisode, m.Plan.Facts); f++ {
			s := endpoint()
			o := endpoint()
			for try := 0; o == s && try < 8; try++ {
				o = endpoint()
			}
			if o == s {
				o = (s + 1) % n
			}
			ends = append(ends, int32(s), int32(o))
			subj, obj := m.Entities[s], m.Entities[o]
			fact := g.fact(rng, ns, f, subj, obj, at, end)
			fact.Episodes = []string{epID}
			m.Facts = append(m.Facts, fact)
			if speaker == "" && subj.Type == kgmem.TypePerson {
				speaker = subj.Name
			}
			if content.Len() > 0 {
				content.WriteByte(' ')
			}
			content.WriteString(connectives[rng.IntN(len(connectives))])
			content.WriteString(fact.Text)
			for _, x := range []int{s, o} {
				if !mentioned[x] {
					mentioned[x] = true
					m.Mentions = append(m.Mentions, kgmem.Mention{EpisodeID: epID, EntityID: m.Entities[x].ID})
				}
			}
		}
		if speaker == "" && len(persons) > 0 {
			speaker = m.Entities[persons[rng.IntN(len(persons))]].Name
		}
		m.Episodes = append(m.Episodes, kgmem.Episode{
			ID: epID, Namespace: ns, ThreadID: thread, MessageID: msg, Role: "user", Name: speaker,
			Content: content.String(), Timestamp: at, CreatedAt: at, Decay: g.model.Initial(0, at),
		})
	}
}

// fact draws fact number f between subj and obj, stated at at.
func (g *Generator) fact(rng *rand.Rand, ns kgmem.Namespace, f int, subj, obj kgmem.Entity, at, end time.Time) kgmem.Fact {
	preds := predicateFor(subj.Type, obj.Type)
	p := preds[rng.IntN(len(preds))]
	text := fill(p.templates[rng.IntN(len(p.templates))], subj.Name, obj.Name, rng)
	importance := 3 + rng.IntN(5)
	if rng.IntN(20) == 0 {
		importance = 9 + rng.IntN(2)
	}
	fact := kgmem.Fact{
		ID: stableID("fact", strconv.FormatUint(g.cfg.Seed, 10), string(ns), strconv.Itoa(f)), Namespace: ns,
		SubjectID: subj.ID, Predicate: p.name, ObjectID: obj.ID, SubjectName: subj.Name, ObjectName: obj.Name,
		Text: text, Confidence: 0.7 + 0.3*rng.Float64(), Importance: importance,
		ValidAt: at.Truncate(24 * time.Hour), CreatedAt: at, Decay: g.model.Initial(importance, at),
	}
	if rng.Float64() < g.cfg.HistoryShare && end.After(at) {
		ended := at.Add(time.Duration(rng.Int64N(int64(end.Sub(at))))).Truncate(time.Second)
		fact.InvalidAt, fact.ExpiredAt = ended, ended
	}
	return fact
}

// fill substitutes a template's placeholders.
func fill(tmpl, subj, obj string, rng *rand.Rand) string {
	r := strings.NewReplacer("{S}", subj, "{O}", obj,
		"{T}", topics[rng.IntN(len(topics))], "{R}", roles[rng.IntN(len(roles))], "{M}", months[rng.IntN(len(months))])
	s := r.Replace(tmpl)
	return strings.ToUpper(s[:1]) + s[1:]
}

// ChangeSets splits m into change sets of at most max records each, in an
// order every store accepts: all entities first, then episodes with their
// facts and mentions.
func (m Memory) ChangeSets(max int) []kgmem.ChangeSet {
	ns := m.Plan.Namespace
	var out []kgmem.ChangeSet
	for chunk := range slices.Chunk(m.Entities, max) {
		out = append(out, kgmem.ChangeSet{Namespace: ns, Entities: chunk})
	}
	// Facts and mentions follow their episode.
	cs := kgmem.ChangeSet{Namespace: ns}
	size := 0
	fi, mi := 0, 0
	for _, ep := range m.Episodes {
		cs.Episodes = append(cs.Episodes, ep)
		size++
		for fi < len(m.Facts) && slices.Contains(m.Facts[fi].Episodes, ep.ID) {
			cs.Facts = append(cs.Facts, m.Facts[fi])
			fi++
			size++
		}
		for mi < len(m.Mentions) && m.Mentions[mi].EpisodeID == ep.ID {
			cs.Mentions = append(cs.Mentions, m.Mentions[mi])
			mi++
		}
		if size >= max {
			out = append(out, cs)
			cs, size = kgmem.ChangeSet{Namespace: ns}, 0
		}
	}
	if !cs.Empty() {
		out = append(out, cs)
	}
	return out
}
