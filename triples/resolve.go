package triples

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/kgmem/kgmem"
)

// Entity-resolution thresholds.
const (
	// fuzzyCandidateJW is the Jaro–Winkler similarity above which a stored entity
	// is a fuzzy candidate for a new name (decided by the LLM, or by the rules below).
	fuzzyCandidateJW = 0.88
	// embeddingMergeCosine merges an ambiguous candidate without an LLM when the
	// name embeddings are at least this similar.
	embeddingMergeCosine = 0.92
	// maxFuzzyCandidates bounds the stored candidates considered per new name.
	maxFuzzyCandidates = 5
	// fuzzyPoolSize is how many full-text hits are scored per new name.
	fuzzyPoolSize = 25
	storePageSize = 500
)

// stopTokens are never used to look up fuzzy candidates and are ignored by compactKey.
var stopTokens = map[string]bool{"the": true, "a": true, "an": true, "of": true, "and": true, "my": true, "our": true}

// compactKey is the loosest exact key: leading articles dropped, only letters and
// digits kept. "the ML-team" and "ML team" share "mlteam".
func compactKey(key string) string {
	ts := tokens(key)
	for len(ts) > 1 && (ts[0] == "the" || ts[0] == "a" || ts[0] == "an") {
		ts = ts[1:]
	}
	var b strings.Builder
	for _, r := range strings.Join(ts, "") {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// group is a set of batch mentions that name one entity.
type group struct {
	keys     []string
	mentions []mention
	typ      string
	match    *kgmem.Entity  // the stored entity it resolves to, if any
	fuzzy    []scoredEntity // ambiguous stored candidates
}

// scoredEntity is a fuzzy candidate with the reason it was considered.
type scoredEntity struct {
	entity kgmem.Entity
	jw     float64
	subset bool // one name's words are a subset of the other's ("Bob" / "Bob Smith")
}

// unionFind groups name keys.
type unionFind map[string]string

func (u unionFind) find(k string) string {
	if _, ok := u[k]; !ok {
		u[k] = k
	}
	for u[k] != k {
		u[k] = u[u[k]]
		k = u[k]
	}
	return k
}

func (u unionFind) union(a, b string) { u[u.find(a)] = u.find(b) }

// resolve maps every mention to an entity (stored or new).
func (w *work) resolve(ctx context.Context) error {
	if len(w.mentions) == 0 {
		return nil
	}
	groups := w.groupMentions()
	if err := w.matchExact(ctx, groups); err != nil {
		return err
	}
	if err := w.matchFuzzy(ctx, groups); err != nil {
		return err
	}
	var ambiguous []*group
	for _, g := range groups {
		if g.match == nil && len(g.fuzzy) > 0 {
			ambiguous = append(ambiguous, g)
		}
	}
	if len(ambiguous) > 0 {
		w.settleAmbiguous(ctx, ambiguous)
	}
	for _, g := range groups {
		w.materialise(g)
	}
	w.linkMentions()
	return nil
}

// groupMentions unions mentions sharing a key, an alias, a compact key, or a
// unique first name ("Bob" with the batch's only "Bob …" person).
func (w *work) groupMentions() []*group {
	uf := unionFind{}
	typeOf := map[string]string{}
	for _, m := range w.mentions {
		uf.find(m.key)
		for _, a := range m.aliases {
			uf.union(kgmem.NormalizeName(a), m.key)
		}
		if m.typ != "" && typeOf[m.key] == "" {
			typeOf[m.key] = m.typ
		}
	}
	keys := make([]string, 0, len(uf))
	for k := range uf {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	byCompact := map[string]string{}
	for _, k := range keys {
		ck := compactKey(k)
		if other, ok := byCompact[ck]; ok && ck != "" {
			uf.union(k, other)
		} else {
			byCompact[ck] = k
		}
	}
	compatible := func(a, b string) bool {
		ta, tb := typeOf[a], typeOf[b]
		return ta == "" || tb == "" || ta == tb || ta == kgmem.TypeOther || tb == kgmem.TypeOther
	}
	// A one-word key joins the one person whose full name starts with it
	// ("bob" and "bob smith"), unless several do. Each key's words are read
	// once: a comparison of every key with every other re-tokenised both,
	// over a quarter of a scripted import's entity resolution.
	single, fullsByFirst := map[string]string{}, map[string][]string{}
	for _, k := range keys {
		switch words := tokens(k); {
		case len(words) == 1:
			single[k] = words[0]
		case len(words) > 1 && typeOf[k] == kgmem.TypePerson:
			fullsByFirst[words[0]] = append(fullsByFirst[words[0]], k)
		}
	}
	for _, k := range keys {
		word, ok := single[k]
		if !ok {
			continue
		}
		var fulls []string
		for _, full := range fullsByFirst[word] {
			if compatible(k, full) && !slices.ContainsFunc(fulls, func(f string) bool { return uf.find(f) == uf.find(full) }) {
				fulls = append(fulls, full)
			}
		}
		if len(fulls) == 1 {
			uf.union(k, fulls[0])
		}
	}
	byRoot := map[string]*group{}
	var out []*group
	for _, m := range w.mentions {
		root := uf.find(m.key)
		g := byRoot[root]
		if g == nil {
			g = &group{}
			byRoot[root] = g
			out = append(out, g)
		}
		g.mentions = append(g.mentions, m)
		for _, k := range append([]string{m.key}, keysOf(m.aliases)...) {
			if !slices.Contains(g.keys, k) {
				g.keys = append(g.keys, k)
			}
		}
		if g.typ == "" || g.typ == kgmem.TypeOther {
			if m.typ != "" {
				g.typ = m.typ
			}
		}
	}
	return out
}

func keysOf(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, kgmem.NormalizeName(n))
	}
	return out
}

// matchExact looks every group's names up in the store.
func (w *work) matchExact(ctx context.Context, groups []*group) error {
	var names []string
	for _, g := range groups {
		names = append(names, g.keys...)
	}
	found, err := w.findEntities(ctx, kgmem.EntityFilter{Names: names})
	if err != nil {
		return err
	}
	byKey := map[string][]kgmem.Entity{}
	for _, e := range found {
		for _, n := range e.Names() {
			k := kgmem.NormalizeName(n)
			byKey[k] = append(byKey[k], e)
		}
	}
	for _, g := range groups {
		score := map[string]int{}
		cands := map[string]kgmem.Entity{}
		for i, k := range g.keys {
			for _, e := range byKey[k] {
				// Earlier keys (the group's own names before aliases) weigh more.
				score[e.ID] += 100 - min(i, 99)
				if e.Type == g.typ {
					score[e.ID] += 50
				}
				cands[e.ID] = e
			}
		}
		best := ""
		for id := range cands {
			if best == "" || score[id] > score[best] || score[id] == score[best] && id < best {
				best = id
			}
		}
		if best != "" {
			e := cands[best]
			g.match = &e
		}
	}
	return nil
}

// matchFuzzy finds stored entities whose names are close to an unmatched group's:
// equal compact keys match outright; Jaro–Winkler ≥ fuzzyCandidateJW or a
// word-subset relation ("Bob" / "Bob Smith") make an ambiguous candidate.
func (w *work) matchFuzzy(ctx context.Context, groups []*group) error {
	for _, g := range groups {
		if g.match != nil {
			continue
		}
		pool, err := w.similarEntities(ctx, g)
		if err != nil {
			return err
		}
		var scored []scoredEntity
		for _, e := range pool {
			if !typesCompatible(g.typ, e.Type) {
				continue
			}
			s := scoredEntity{entity: e}
			for _, gk := range g.keys {
				for _, n := range e.Names() {
					ek := kgmem.NormalizeName(n)
					if compactKey(gk) == compactKey(ek) {
						ee := e
						g.match = &ee
					}
					s.jw = max(s.jw, jaroWinkler(gk, ek))
					if (tokenSubset(gk, ek) || tokenSubset(ek, gk)) && (namedType[g.typ] || namedType[e.Type]) {
						s.subset = true
					}
					if tokenwiseSimilar(gk, ek) {
						s.jw = max(s.jw, fuzzyCandidateJW)
					}
				}
			}
			if g.match != nil {
				break
			}
			if s.jw >= fuzzyCandidateJW || s.subset {
				scored = append(scored, s)
			}
		}
		if g.match != nil {
			continue
		}
		sort.SliceStable(scored, func(i, j int) bool { return scored[i].jw > scored[j].jw })
		if len(scored) > maxFuzzyCandidates {
			scored = scored[:maxFuzzyCandidates]
		}
		g.fuzzy = scored
	}
	return nil
}

// namedType are the types whose shorter names usually abbreviate the longer
// ("Bob" / "Bob Smith", "Acme" / "Acme Corp"). For other types a longer name is
// usually a more specific thing ("ramen" / "miso ramen") and is not a candidate.
var namedType = map[string]bool{
	kgmem.TypePerson: true, kgmem.TypeOrganization: true, kgmem.TypeTeam: true, kgmem.TypeProject: true, kgmem.TypePlace: true,
}

// similarEntities finds stored entities sharing a word with the group's names
// through the store's full-text index (one indexed query, best first).
func (w *work) similarEntities(ctx context.Context, g *group) ([]kgmem.Entity, error) {
	var words []string
	for _, k := range g.keys {
		for _, tok := range strings.FieldsFunc(k, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if !stopTokens[tok] && !slices.Contains(words, tok) {
				words = append(words, tok)
			}
		}
	}
	if len(words) == 0 {
		return nil, nil
	}
	hits, err := w.reads.SearchText(ctx, kgmem.TextQuery{Text: strings.Join(words, " "), Kinds: []kgmem.Kind{kgmem.KindEntity}, Limit: fuzzyPoolSize})
	if err != nil {
		if errors.Is(err, kgmem.ErrInvalid) {
			return nil, nil // nothing searchable in the names.
		}
		return nil, fmt.Errorf("search similar entities: %w", err)
	}
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		if h.Kind == kgmem.KindEntity {
			ids = append(ids, h.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	es, err := w.reads.Entities(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("read similar entities: %w", err)
	}
	return es, nil
}

func typesCompatible(a, b string) bool {
	return a == "" || b == "" || a == b || a == kgmem.TypeOther || b == kgmem.TypeOther
}

// settleAmbiguous decides the groups with fuzzy candidates. With an LLM, the
// first pass provisionally takes the best candidate and records the group for
// the judge; the decided pass applies the judge's answers. Without an LLM, when the judge failed, or for
// groups it did not answer, the rules decide: a unique person candidate whose
// words contain the new name's (or the reverse), else a name embedding at least
// embeddingMergeCosine similar.
func (w *work) settleAmbiguous(ctx context.Context, ambiguous []*group) {
	if w.in.llm != nil && w.decisions == nil {
		// Assume the best candidate for now, so the judge also sees the facts
		// the merged entity would touch; its answer settles both in one call.
		w.ambiguous = ambiguous
		for _, g := range ambiguous {
			e := g.fuzzy[0].entity
			g.match = &e
		}
		return
	}
	var rest []*group
	for _, g := range ambiguous {
		id, answered := "", false
		if w.decisions != nil && w.decisions.err == nil {
			id, answered = w.decisions.entity[groupID(g)]
		}
		if !answered {
			rest = append(rest, g)
			continue
		}
		for _, c := range g.fuzzy {
			if c.entity.ID == id {
				e := c.entity
				g.match = &e
			}
		}
	}
	ambiguous = rest
	for _, g := range ambiguous {
		var subset []scoredEntity
		for _, c := range g.fuzzy {
			if c.subset && (g.typ == kgmem.TypePerson || c.entity.Type == kgmem.TypePerson) {
				subset = append(subset, c)
			}
		}
		if len(subset) == 1 {
			e := subset[0].entity
			g.match = &e
		}
	}
	if w.in.embedder == nil {
		return
	}
	var texts []string
	var owners []int
	for i, g := range ambiguous {
		if g.match != nil {
			continue
		}
		texts = append(texts, g.mentions[0].name)
		owners = append(owners, i)
		for _, c := range g.fuzzy {
			texts = append(texts, c.entity.Name)
			owners = append(owners, -1)
		}
	}
	if len(texts) == 0 {
		return
	}
	vecs, err := w.in.embedder.Embed(ctx, texts)
	if err != nil || len(vecs) != len(texts) {
		return // embeddings only refine the rules; without them the names stay apart.
	}
	for j := 0; j < len(texts); j++ {
		if owners[j] < 0 {
			continue
		}
		g := ambiguous[owners[j]]
		bestCos, best := 0.0, -1
		for k := range g.fuzzy {
			if c := cosine(vecs[j], vecs[j+1+k]); c > bestCos {
				bestCos, best = c, k
			}
		}
		if best >= 0 && bestCos >= embeddingMergeCosine {
			e := g.fuzzy[best].entity
			g.match = &e
		}
		j += len(g.fuzzy)
	}
}

// materialise turns a resolved group into an entity record in the working set.
func (w *work) materialise(g *group) {
	var e *kgmem.Entity
	if g.match != nil {
		if have, ok := w.entities[g.match.ID]; ok {
			e = have
		} else {
			cp := *g.match
			cp.Aliases = slices.Clone(cp.Aliases)
			e = &cp
			w.addEntity(e, false)
		}
		if t := moreSpecificType(e.Type, g.typ); t != e.Type {
			e.Type = t
			w.touchEntity(e.ID)
		}
	} else {
		name := canonicalName(g)
		id := kgmem.EntityID(w.ns, name)
		if have, ok := w.entities[id]; ok {
			e = have
		} else {
			typ := g.typ
			if typ == "" {
				typ = kgmem.TypeOther
			}
			e = &kgmem.Entity{ID: id, Namespace: w.ns, Name: name, Type: typ, CreatedAt: w.now, UpdatedAt: w.now}
			w.addEntity(e, true)
		}
	}
	have := map[string]bool{}
	for _, n := range e.Names() {
		have[kgmem.NormalizeName(n)] = true
	}
	for _, m := range g.mentions {
		for _, n := range append([]string{m.name}, m.aliases...) {
			k := kgmem.NormalizeName(n)
			if !have[k] {
				have[k] = true
				e.Aliases = append(e.Aliases, n)
				w.touchEntity(e.ID)
			}
		}
		for k, v := range m.attrs {
			if e.Attributes == nil {
				e.Attributes = map[string]any{}
			}
			if cur, ok := e.Attributes[k]; !ok || fmt.Sprint(cur) != fmt.Sprint(v) {
				e.Attributes[k] = v
				w.touchEntity(e.ID)
			}
		}
	}
	for _, k := range g.keys {
		w.keyToEntity[k] = e.ID
	}
	for _, m := range g.mentions {
		w.keyToEntity[m.key] = e.ID
	}
}

func (w *work) addEntity(e *kgmem.Entity, changed bool) {
	w.entities[e.ID] = e
	w.entityOrder = append(w.entityOrder, e.ID)
	if changed {
		w.changedEntity[e.ID] = true
		w.newEntity[e.ID] = true
	}
}

func (w *work) touchEntity(id string) {
	w.changedEntity[id] = true
	w.entities[id].UpdatedAt = w.now
}

// canonicalName picks a new entity's display name: a name from the extractor's
// entity list when there is one, else any; the one with most words, then longest.
func canonicalName(g *group) string {
	best, bestListed := "", false
	better := func(n string, listed bool) bool {
		if best == "" || listed && !bestListed {
			return true
		}
		if listed != bestListed {
			return false
		}
		nw, bw := len(tokens(kgmem.NormalizeName(n))), len(tokens(kgmem.NormalizeName(best)))
		return nw > bw || nw == bw && len(n) > len(best)
	}
	for _, m := range g.mentions {
		if better(m.name, m.listed) {
			best, bestListed = m.name, m.listed
		}
	}
	return best
}

// linkMentions records which batch episodes mention which entities.
func (w *work) linkMentions() {
	link := func(entityID, episodeID string) {
		if w.entityEpisodes[entityID] == nil {
			w.entityEpisodes[entityID] = map[string]bool{}
		}
		w.entityEpisodes[entityID][episodeID] = true
	}
	for _, c := range w.cands {
		for _, ep := range c.episodes {
			link(w.keyToEntity[c.subject.key], ep)
			link(w.keyToEntity[c.object.key], ep)
		}
	}
	// Every listed mention is looked for in every episode of the batch:
	// lower-case each content and normalise each name once.
	contents := make([]string, len(w.req.Episodes))
	for i, ep := range w.req.Episodes {
		contents[i] = strings.ToLower(ep.Content)
	}
	var keys []string
	for _, m := range w.mentions {
		if !m.listed {
			continue
		}
		id := w.keyToEntity[m.key]
		keys = keys[:0]
		for _, n := range append(w.entities[id].Names(), m.name) {
			if k := kgmem.NormalizeName(n); k != "" {
				keys = append(keys, k)
			}
		}
		linked := false
		for i, ep := range w.req.Episodes {
			for _, k := range keys {
				if strings.Contains(contents[i], k) {
					link(id, ep.ID)
					linked = true
					break
				}
			}
		}
		if !linked && len(w.req.Episodes) == 1 {
			link(id, w.req.Episodes[0].ID)
		}
	}
}

// findEntities pages through FindEntities; a Names filter is split into chunks.
func (w *work) findEntities(ctx context.Context, f kgmem.EntityFilter) ([]kgmem.Entity, error) {
	if len(f.Names) > storePageSize {
		var out []kgmem.Entity
		seen := map[string]bool{}
		for chunk := range slices.Chunk(f.Names, storePageSize) {
			g := f
			g.Names = chunk
			part, err := w.findEntities(ctx, g)
			if err != nil {
				return nil, err
			}
			for _, e := range part {
				if !seen[e.ID] {
					seen[e.ID] = true
					out = append(out, e)
				}
			}
		}
		return out, nil
	}
	if f.Limit > 0 {
		out, err := w.reads.FindEntities(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("find entities: %w", err)
		}
		return out, nil
	}
	var out []kgmem.Entity
	f.Limit = storePageSize
	for {
		page, err := w.reads.FindEntities(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("find entities: %w", err)
		}
		out = append(out, page...)
		if len(page) < f.Limit {
			return out, nil
		}
		f.After = page[len(page)-1].ID
	}
}
