package sqlite_test

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// corpus generates reproducible synthetic facts: a vocabulary of made-up
// words drawn with a Zipf distribution, like words of real text.
type corpus struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	words []string
}

// newCorpus returns a corpus with a vocabulary of n words.
func newCorpus(seed uint64, n int) *corpus {
	rng := rand.New(rand.NewPCG(seed, 1))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "so", "da", "fu", "gri", "bel", "tor", "man"}
	seen := map[string]bool{}
	var words []string
	for len(words) < n {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return &corpus{rng: rng, zipf: rand.NewZipf(rng, 1.07, 2, uint64(n-1)), words: words}
}

// text returns n words.
func (c *corpus) text(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = c.words[c.zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

// batch returns a change set of facts facts over a pool of entities entities
// in ns; ids carry prefix p so batches never collide.
func (c *corpus) batch(ns kgmem.Namespace, p string, entities, facts int) kgmem.ChangeSet {
	cs := kgmem.ChangeSet{Namespace: ns}
	ids := make([]string, entities)
	for i := range ids {
		e := graphtest.Entity(ns, fmt.Sprintf("ent_%s_%d", p, i), c.text(2))
		cs.Entities = append(cs.Entities, e)
		ids[i] = e.ID
	}
	ep := graphtest.Episode(ns, "ep_"+p, "Ann", c.text(30))
	cs.Episodes = []kgmem.Episode{ep}
	for i := range facts {
		f := graphtest.Fact(ns, fmt.Sprintf("fact_%s_%d", p, i), ids[c.rng.IntN(entities)], "relates_to", ids[c.rng.IntN(entities)], c.text(12))
		f.Episodes = []string{ep.ID}
		cs.Facts = append(cs.Facts, f)
	}
	return cs
}

// BenchmarkApply50Facts measures one ChangeSet of 50 facts, 20 entities and
// an episode, the size of one ingested message batch.
func BenchmarkApply50Facts(b *testing.B) {
	s, _ := openTemp(b)
	c := newCorpus(1, 20_000)
	var batches []kgmem.ChangeSet
	for i := range 256 {
		batches = append(batches, c.batch("bench/apply", fmt.Sprint(i), 20, 50))
	}
	i := 0
	for b.Loop() {
		cs := batches[i%len(batches)]
		i++
		if err := s.Apply(b.Context(), cs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyMessages measures the change sets of a chat server's ingest
// without extraction, as cmd/load sends them: 1 to 3 messages of a thread,
// each one episode, over 20 namespaces, one Apply at a time.
func BenchmarkApplyMessages(b *testing.B) {
	s, _ := openTemp(b)
	c := newCorpus(3, 20_000)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	i := 0
	for b.Loop() {
		ns := kgmem.Namespace(fmt.Sprintf("bench/messages/%d", i%20))
		cs := kgmem.ChangeSet{Namespace: ns}
		for m := range 1 + i%3 {
			ep := graphtest.Episode(ns, fmt.Sprintf("ep_%d_%d", i, m), "Ann", c.text(20))
			ep.ThreadID, ep.Timestamp = fmt.Sprintf("thread_%d", i%7), at.Add(time.Duration(i)*time.Second)
			cs.Episodes = append(cs.Episodes, ep)
		}
		i++
		if err := s.Apply(b.Context(), cs); err != nil {
			b.Fatal(err)
		}
	}
}

// fill writes facts facts in 1,000-fact batches into each of the namespaces.
func fill(b *testing.B, s *sqlite.Store, c *corpus, namespaces []kgmem.Namespace, facts int) {
	b.Helper()
	for n, ns := range namespaces {
		for i := 0; i < facts; i += 1000 {
			cs := c.batch(ns, fmt.Sprintf("%d_%d", n, i), 200, min(1000, facts-i))
			if err := s.Apply(b.Context(), cs); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// searchBench runs 3-word queries, spread over the namespaces, and reports
// latency percentiles.
func searchBench(b *testing.B, s *sqlite.Store, c *corpus, nss ...kgmem.Namespace) {
	b.Helper()
	queries := make([]string, 512)
	for i := range queries {
		queries[i] = c.text(3)
	}
	var lat []time.Duration
	i, empty := 0, 0
	for b.Loop() {
		start := time.Now()
		hits, err := s.SearchText(b.Context(), nss[i%len(nss)], kgmem.TextQuery{Text: queries[i%len(queries)], Limit: 10})
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if len(hits) == 0 {
			empty++
		}
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(100*float64(empty)/float64(len(lat)), "%no-hits")
}

// BenchmarkSearchText100k searches one namespace of 100,000 facts.
func BenchmarkSearchText100k(b *testing.B) {
	s, _ := openTemp(b)
	c := newCorpus(2, 20_000)
	fill(b, s, c, []kgmem.Namespace{"bench/search"}, 100_000)
	searchBench(b, s, c, "bench/search")
}

// BenchmarkSearchTextManyNamespaces searches 100 namespaces of 2,000 facts
// each, the shape of issue #7's target scaled down to set up in under a minute.
func BenchmarkSearchTextManyNamespaces(b *testing.B) {
	s, _ := openTemp(b)
	c := newCorpus(3, 20_000)
	nss := namespaces(100)
	fill(b, s, c, nss, 2_000)
	searchBench(b, s, c, nss...)
}

// BenchmarkSearchTextIssue7Scale searches issue #7's target: 1,000,000 facts
// over 200,000 entities in 1,000 namespaces. Setting it up takes minutes.
func BenchmarkSearchTextIssue7Scale(b *testing.B) {
	s, _ := openTemp(b)
	c := newCorpus(4, 20_000)
	nss := namespaces(1000)
	fill(b, s, c, nss, 1_000)
	searchBench(b, s, c, nss...)
}

// namespaces returns n benchmark namespace names.
func namespaces(n int) []kgmem.Namespace {
	nss := make([]kgmem.Namespace, n)
	for i := range nss {
		nss[i] = kgmem.Namespace(fmt.Sprintf("bench/ns%04d", i))
	}
	return nss
}

// BenchmarkEpisodes loads the 20 episodes a search returns from a namespace
// of 3,000, from the episode cache and, with a cache of size 0, from the file.
func BenchmarkEpisodes(b *testing.B) {
	s, _ := openTemp(b)
	c := newCorpus(1, 20_000)
	const ns = kgmem.Namespace("bench/episodes")
	var ids []string
	for i := 0; i < 3000; i += 100 {
		cs := kgmem.ChangeSet{Namespace: ns}
		for j := i; j < i+100; j++ {
			ep := graphtest.Episode(ns, fmt.Sprintf("ep_%06d", j), "Ann", c.text(25))
			ep.Metadata = map[string]any{"session": float64(j / 100), "source": "bench"}
			cs.Episodes = append(cs.Episodes, ep)
			ids = append(ids, ep.ID)
		}
		if err := s.Apply(b.Context(), cs); err != nil {
			b.Fatal(err)
		}
	}
	for _, size := range []int{0, 16 << 20} {
		b.Run(fmt.Sprintf("cache=%dMiB", size>>20), func(b *testing.B) {
			sqlite.CacheEpisodes(s, size)
			i := 0
			for b.Loop() {
				batch := make([]string, 20)
				for k := range batch {
					batch[k] = ids[(i*37+k*101)%len(ids)]
				}
				i++
				if _, err := s.Episodes(b.Context(), ns, batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApplyExtractedBatch measures the change set an extracting import
// writes per request: 50 messages of a thread, 60 facts between 20 of the
// namespace's 400 entities, and two mentions per message, over ten
// namespaces in turn, on a store opened as `server ingest` opens it. Ids are
// digests, as kgmem derives them, so every index is written in random
// order. Besides the time, it reports the bytes the process wrote per
// change set (WAL frames and checkpoints; Linux only), which unlike the
// time do not depend on the machine's load.
func BenchmarkApplyExtractedBatch(b *testing.B) {
	s, _ := openTemp(b, sqlite.Exclusive(), sqlite.BackgroundCheckpoints())
	c := newCorpus(5, 20_000)
	predicates := []string{"works_on", "lives_in", "likes", "knows", "leads", "member_of", "visited", "owns"}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	batch := func(i int) kgmem.ChangeSet {
		ns := kgmem.Namespace(fmt.Sprintf("bench/extracted/%d", i%10))
		cs := kgmem.ChangeSet{Namespace: ns}
		ids := make([]string, 20)
		for j := range ids {
			n := c.rng.IntN(400)
			id := fmt.Sprintf("ent_%x", sha256.Sum224([]byte(fmt.Sprint(ns, n))))[:28]
			e := graphtest.Entity(ns, id, fmt.Sprintf("Person %d", n))
			cs.Entities = append(cs.Entities, e)
			ids[j] = e.ID
		}
		thread := fmt.Sprintf("thread-%d", i/10)
		for m := range 50 {
			ep := graphtest.Episode(ns, kgmem.EpisodeID(ns, thread, fmt.Sprint(m)), "Ann", c.text(12))
			ep.ThreadID, ep.Timestamp = thread, at.Add(time.Duration(i*50+m)*time.Minute)
			cs.Episodes = append(cs.Episodes, ep)
			for k := range 2 {
				cs.Mentions = append(cs.Mentions, kgmem.Mention{EpisodeID: ep.ID, EntityID: ids[(m+k*7)%len(ids)]})
			}
		}
		for j := range 60 {
			f := graphtest.Fact(ns, kgmem.NewID("fact"), ids[c.rng.IntN(len(ids))], predicates[c.rng.IntN(len(predicates))], ids[c.rng.IntN(len(ids))], c.text(8))
			f.Episodes = []string{cs.Episodes[j%50].ID}
			cs.Facts = append(cs.Facts, f)
		}
		return cs
	}
	written := func() int64 {
		raw, err := os.ReadFile("/proc/self/io")
		if err != nil {
			return -1
		}
		for line := range strings.Lines(string(raw)) {
			if v, ok := strings.CutPrefix(line, "wchar: "); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				return n
			}
		}
		return -1
	}
	before, i := written(), 0
	for b.Loop() {
		cs := batch(i)
		i++
		if err := s.Apply(b.Context(), cs); err != nil {
			b.Fatal(err)
		}
	}
	if after := written(); before >= 0 && after >= 0 {
		b.ReportMetric(float64(after-before)/float64(b.N), "B-written/op")
	}
}
