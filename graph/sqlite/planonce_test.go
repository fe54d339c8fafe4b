package sqlite

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/internal/nscache"
	msqlite "modernc.org/sqlite"
)

// TestCachedReadsArePlannedOnce runs every read shape of the store three
// times with different arguments and page sizes, counting the statements
// SQLite compiles on the reader connection (its authorizer is called once
// per table a statement reads, at compile time and at every re-prepare;
// transaction control aside).
// After the first round every statement is cached, so the later rounds must
// compile nothing: a bare "LIMIT ?" made SQLite 3.54 re-plan its statement
// on every execution (see limitParam).
func TestCachedReadsArePlannedOnce(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	// Every read through SQL: FTS5 ranking, thread walks and episodes
	// uncached, on one reader connection the authorizer watches.
	SearchThroughFTS5(s)
	s.threads = nscache.New[*threadOrder](0, 0)
	s.episodes = newEpisodeCache(0)
	s.r.SetMaxOpenConns(1)

	ns := kgmem.Namespace("plan/once")
	const rounds, perRound = 3, 4
	cs := kgmem.ChangeSet{Namespace: ns}
	entity := func(round, i int) string { return fmt.Sprintf("ent_%d_%d", round, i) }
	for round := range rounds {
		for i := range perRound {
			cs.Entities = append(cs.Entities, graphtest.Entity(ns, entity(round, i), fmt.Sprintf("Person %d %d", round, i)))
			ep := graphtest.Episode(ns, fmt.Sprintf("ep_%d_%d", round, i), "Ann", fmt.Sprintf("Ann met person %d of round %d in Lisbon", i, round))
			ep.ThreadID = "thread"
			ep.Timestamp = time.Date(2025, 1, 1, round, i, 0, 0, time.UTC)
			cs.Episodes = append(cs.Episodes, ep)
			f := graphtest.Fact(ns, fmt.Sprintf("fact_%d_%d", round, i), entity(round, i), "knows", entity(round, (i+1)%perRound), "knows someone in Lisbon")
			f.Episodes = []string{ep.ID}
			cs.Facts = append(cs.Facts, f)
			cs.Items = append(cs.Items, graphtest.Item(ns, fmt.Sprintf("key_%d_%d", round, i), `{"city": "Lisbon"}`, "an item about Lisbon"))
		}
	}
	if err := s.Apply(ctx, cs); err != nil {
		t.Fatal(err)
	}

	var compiled atomic.Int64
	conn, err := s.r.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = conn.Raw(func(driverConn any) error {
		return driverConn.(msqlite.AuthorizerRegisterer).RegisterAuthorizer(
			func(action msqlite.AuthorizerActionCode, _, _, _, _ string) msqlite.AuthorizerReturnCode {
				// The driver runs BEGIN and ROLLBACK unprepared: small
				// statements, compiled for each read transaction.
				if action != msqlite.AuthTransaction {
					compiled.Add(1)
				}
				return msqlite.AuthorizerOK
			})
	})
	if cerr := conn.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	type read struct {
		name string
		run  func(ctx context.Context, round int) error
	}
	page := func(round int) kgmem.Page { return kgmem.Page{Limit: 2 + round} }
	reads := []read{
		{"Episodes", func(ctx context.Context, round int) error {
			_, err := s.Episodes(ctx, ns, []string{fmt.Sprintf("ep_%d_0", round)})
			return err
		}},
		{"ListEpisodes", func(ctx context.Context, round int) error {
			_, err := s.ListEpisodes(ctx, ns, page(round))
			return err
		}},
		{"ListItems", func(ctx context.Context, round int) error {
			_, err := s.ListItems(ctx, ns, page(round))
			return err
		}},
		// Three names, then four: name lists are padded to a power of two.
		// With a type the names are matched in SQL; without, in memory,
		// and the entities found read by id.
		{"FindEntities", func(ctx context.Context, round int) error {
			names := []string{fmt.Sprintf("Person %d 1", round), "Lisbon", "Ann"}
			if round == 1 {
				names = append(names, "Person 1 2")
			}
			if _, err := s.FindEntities(ctx, ns, kgmem.EntityFilter{Names: names, Type: "person", Page: page(round)}); err != nil {
				return err
			}
			_, err := s.FindEntities(ctx, ns, kgmem.EntityFilter{Names: names, Page: kgmem.Page{Limit: 100}})
			return err
		}},
		{"Entities", func(ctx context.Context, round int) error {
			_, err := s.Entities(ctx, ns, []string{entity(round, 0)})
			return err
		}},
		{"Facts", func(ctx context.Context, round int) error {
			_, err := s.Facts(ctx, ns, []string{fmt.Sprintf("fact_%d_0", round)})
			return err
		}},
		{"ListFacts", func(ctx context.Context, round int) error {
			for _, f := range []kgmem.FactFilter{
				{Page: page(round)},
				{EntityID: entity(round, 0), Page: page(round)},
				{EntityID: entity(round, 0), Predicate: "knows", Page: page(round)},
				{EntityID: entity(round, 0), OtherID: entity(round, 1), IncludeExpired: true, Page: page(round)},
				{EntityID: entity(round, 0), OtherID: entity(round, 1), Predicate: "knows", Page: page(round)},
			} {
				if _, err := s.ListFacts(ctx, ns, f); err != nil {
					return err
				}
			}
			return nil
		}},
		// Another query each round, of two terms or more (their document
		// frequencies are counted). Four hits, then three: the hits' rowids
		// are looked up in a list padded to a power of two.
		{"SearchText", func(ctx context.Context, round int) error {
			text := []string{"someone in Lisbon", "Lisbon knows", "met in Lisbon"}[round]
			for _, kind := range []kgmem.Kind{kgmem.KindFact, kgmem.KindEpisode, kgmem.KindItem} {
				q := kgmem.TextQuery{Text: text, Kinds: []kgmem.Kind{kind}, Limit: []int{4, 3, 4}[round], IncludeExpired: true}
				if _, err := s.SearchText(ctx, ns, q); err != nil {
					return err
				}
			}
			return nil
		}},
		{"Neighborhood", func(ctx context.Context, round int) error {
			_, err := s.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{entity(round, 0)}, Depth: 2, FanOut: 2 + round})
			return err
		}},
		{"ThreadNeighbors", func(ctx context.Context, round int) error {
			_, err := s.ThreadNeighbors(ctx, ns, kgmem.ThreadNeighborsQuery{IDs: []string{fmt.Sprintf("ep_%d_1", round)}, Window: 1 + round})
			return err
		}},
		{"LatestTime", func(ctx context.Context, round int) error {
			_, err := s.LatestTime(ctx, ns)
			return err
		}},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			// The first round prepares. A transaction's statement is
			// prepared in the background while the transaction runs it
			// unprepared, so round 0 repeats until a run compiles nothing.
			deadline := time.Now().Add(10 * time.Second)
			for {
				before := compiled.Load()
				if err := r.run(ctx, 0); err != nil {
					t.Fatal(err)
				}
				// A view read once (the entity names) prepares its
				// statements once, in the background.
				s.ws.reads.waitPrepared()
				if compiled.Load() == before {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("round 0 still compiles statements after 10 s")
				}
			}
			before := compiled.Load()
			for round := 1; round < rounds; round++ {
				if err := r.run(ctx, round); err != nil {
					t.Fatal(err)
				}
			}
			if n := compiled.Load() - before; n != 0 {
				t.Errorf("%d authorizer calls after the first round: a cached statement was compiled again", n)
			}
		})
	}
}
