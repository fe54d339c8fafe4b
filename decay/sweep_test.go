package decay

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// TestSweepSimulatedYear runs a weekly sweep over a simulated year and checks
// that exactly the unreinforced trivia is forgotten, at the first sweep after
// its retention crosses the threshold, and that nothing is deleted, pinned,
// evergreen, recalled or important records stay, other namespaces are untouched,
// and already forgotten records keep their ForgottenAt.
func TestSweepSimulatedYear(t *testing.T) {
	forEachStore(t, func(t *testing.T, store kgmem.GraphStore) {
		ctx := context.Background()
		p := DefaultParams()
		p.DefaultImportance = 1 // entities and episodes fade like trivia
		m, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		const ns, other = kgmem.Namespace("acme/u1"), kgmem.Namespace("acme/u2")

		f := newFixture(ns, epoch)
		// Trivia stated on staggered days; more than one sweep page.
		trivia := map[Ref]time.Time{}
		for i := range 230 {
			created := epoch.Add(time.Duration(i%60) * day)
			trivia[factRef(f.fact(numbered("fact_trivia", i), 1, created, m.Initial(1, created)))] = created
		}
		expired := f.fact("fact_expired", 1, epoch, m.Initial(1, epoch))
		f.facts[len(f.facts)-1].InvalidAt = epoch.Add(day)
		f.facts[len(f.facts)-1].ExpiredAt = epoch.Add(day)
		trivia[factRef(expired)] = epoch
		recalled := factRef(f.fact("fact_recalled", 1, epoch, m.Initial(1, epoch)))
		pinned := factRef(f.fact("fact_pinned", 1, epoch, m.Pin(m.Initial(1, epoch), epoch)))
		evergreen := factRef(f.fact("fact_evergreen", 10, epoch, m.Initial(10, epoch)))
		important := factRef(f.fact("fact_important", 6, epoch, m.Initial(6, epoch)))
		trivia[entityRef(f.entity("Bob", epoch, m.Initial(0, epoch)))] = epoch
		trivia[episodeRef(f.episode("m1", epoch, m.Initial(0, epoch)))] = epoch
		// Written before decay was wired in: never anchored, aged from creation.
		trivia[episodeRef(f.episode("m2", epoch.Add(10*day), kgmem.DecayState{}))] = epoch.Add(10 * day)
		pinnedEpisode := episodeRef(f.episode("m3", epoch, m.Pin(kgmem.DecayState{}, epoch)))
		f.write(t, store)

		g := newFixture(other, epoch)
		bystander := factRef(g.fact("fact_other", 1, epoch, m.Initial(1, epoch)))
		g.write(t, store)

		keep := []Ref{recalled, pinned, evergreen, important, pinnedEpisode, entityRef(f.subject)}
		total := len(f.facts) + len(f.entities) + len(f.episodes)
		forgottenSoFar := 0
		var lastSweep time.Time
		for week := 1; week <= 52; week++ {
			now := epoch.Add(time.Duration(week) * 7 * day)
			if week%4 == 0 {
				s := m.Reinforce(stateOf(t, store, ns, recalled), 1, now)
				if err := store.SetDecay(ctx, ns, []kgmem.DecayUpdate{{Kind: recalled.Kind, ID: recalled.ID, State: s}}); err != nil {
					t.Fatal(err)
				}
			}
			stats, err := Sweep(ctx, store, ns, m, now)
			if err != nil {
				t.Fatalf("week %d: %v", week, err)
			}
			tot := stats.Total()
			if tot.Scanned != total {
				t.Fatalf("week %d: scanned %d records, want %d (nothing deleted)", week, tot.Scanned, total)
			}
			if tot.AlreadyForgotten != forgottenSoFar {
				t.Fatalf("week %d: %d already forgotten, want %d", week, tot.AlreadyForgotten, forgottenSoFar)
			}
			forgottenSoFar += tot.Forgotten
			states := statesOf(t, store, ns, append(slices.Collect(maps.Keys(trivia)), keep...))
			for ref, created := range trivia {
				due := created.Add(m.ForgetAfter(m.InitialStability(1)))
				s := states[ref]
				switch {
				case now.Before(due) && s.Forgotten():
					t.Fatalf("week %d: %v forgotten before its time (%v)", week, ref, due)
				case !now.Before(due) && !s.Forgotten():
					t.Fatalf("week %d: %v not forgotten though R < threshold since %v", week, ref, due)
				case s.Forgotten() && (s.ForgottenAt.Before(due) || s.ForgottenAt.Sub(due) >= 7*day):
					// Weekly sweeps: the first one at or after due forgets it, and later ones leave it.
					t.Fatalf("week %d: %v ForgottenAt %v, due %v", week, ref, s.ForgottenAt, due)
				}
			}
			for _, ref := range keep {
				if states[ref].Forgotten() {
					t.Fatalf("week %d: %v forgotten", week, ref)
				}
			}
			lastSweep = now
		}
		if forgottenSoFar != len(trivia) {
			t.Errorf("forgot %d records over the year, want all %d trivia", forgottenSoFar, len(trivia))
		}
		if stateOf(t, store, other, bystander).Forgotten() {
			t.Errorf("sweep of %s forgot a record of %s", ns, other)
		}
		if s := stateOf(t, store, ns, pinned); !sameState(s, m.Pin(m.Initial(1, epoch), epoch)) {
			t.Errorf("pinned record's state changed: %+v", s)
		}
		if r := m.Retention(stateOf(t, store, ns, recalled), 1, lastSweep); r < 0.5 {
			t.Errorf("monthly recalled trivia has R = %v at the end of the year", r)
		}
	})
}

func TestSweepDisabledAndInvalid(t *testing.T) {
	forEachStore(t, func(t *testing.T, store kgmem.GraphStore) {
		ctx := context.Background()
		const ns = kgmem.Namespace("acme")
		f := newFixture(ns, epoch)
		id := factRef(f.fact("fact_trivia", 1, epoch, DefaultModel().Initial(1, epoch)))
		f.write(t, store)
		p := DefaultParams()
		p.Enabled = false
		off, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		stats, err := Sweep(ctx, store, ns, off, epoch.Add(3650*day))
		if err != nil || !stats.Disabled || stats.Total().Scanned != 0 {
			t.Fatalf("disabled sweep = %+v, %v", stats, err)
		}
		if stateOf(t, store, ns, id).Forgotten() {
			t.Error("disabled sweep forgot a record")
		}
		if _, err := Sweep(ctx, store, "bad//ns", DefaultModel(), epoch); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("sweep of an invalid namespace: %v, want ErrInvalid", err)
		}
	})
}

func TestRestoreAndPinItems(t *testing.T) {
	forEachStore(t, func(t *testing.T, store kgmem.GraphStore) {
		ctx := context.Background()
		m := DefaultModel()
		const ns = kgmem.Namespace("acme")
		f := newFixture(ns, epoch)
		a := factRef(f.fact("fact_a", 1, epoch, m.Initial(1, epoch)))
		b := episodeRef(f.episode("m1", epoch, m.Initial(1, epoch)))
		f.write(t, store)
		forgetAt := epoch.Add(400 * day)
		if stats, err := Sweep(ctx, store, ns, m, forgetAt); err != nil || stats.Total().Forgotten != 2 {
			t.Fatalf("sweep = %+v, %v; want 2 forgotten", stats, err)
		}

		// Bad input changes nothing.
		before := stateOf(t, store, ns, a)
		bad := []struct {
			name string
			refs []Ref
			want error
		}{
			{"missing id", []Ref{a, factRef("fact_nope")}, kgmem.ErrNotFound},
			{"wrong kind for id", []Ref{a, entityRef(a.ID)}, kgmem.ErrNotFound},
			{"bad kind", []Ref{a, {Kind: "node", ID: "x"}}, kgmem.ErrInvalid},
			{"empty id", []Ref{a, {Kind: kgmem.KindFact}}, kgmem.ErrInvalid},
		}
		for _, tt := range bad {
			if _, err := RestoreItems(ctx, store, ns, m, forgetAt, tt.refs...); !errors.Is(err, tt.want) {
				t.Errorf("restore %s: %v, want %v", tt.name, err, tt.want)
			}
			if _, err := PinItems(ctx, store, ns, m, forgetAt, true, tt.refs...); !errors.Is(err, tt.want) {
				t.Errorf("pin %s: %v, want %v", tt.name, err, tt.want)
			}
		}
		if got := stateOf(t, store, ns, a); !sameState(got, before) {
			t.Fatalf("failed calls changed the state: %+v -> %+v", before, got)
		}
		if _, err := RestoreItems(ctx, store, "acme/u2", m, forgetAt, a); !errors.Is(err, kgmem.ErrNotFound) {
			t.Errorf("restore in another namespace: %v, want ErrNotFound", err)
		}

		restoreAt := forgetAt.Add(day)
		if n, err := RestoreItems(ctx, store, ns, m, restoreAt, a, b, a); err != nil || n != 2 {
			t.Fatalf("RestoreItems = %d, %v; want 2", n, err)
		}
		for _, ref := range []Ref{a, b} {
			s := stateOf(t, store, ns, ref)
			if s.Forgotten() || !s.LastReinforcedAt.Equal(restoreAt) {
				t.Errorf("%v after restore: %+v", ref, s)
			}
		}
		if stats, err := Sweep(ctx, store, ns, m, restoreAt.Add(day)); err != nil || stats.Total().Forgotten != 0 {
			t.Errorf("sweep right after restore = %+v, %v; want nothing forgotten", stats, err)
		}

		if n, err := PinItems(ctx, store, ns, m, restoreAt, true, a); err != nil || n != 1 {
			t.Fatalf("PinItems = %d, %v", n, err)
		}
		far := restoreAt.Add(5 * 365 * day)
		if stats, err := Sweep(ctx, store, ns, m, far); err != nil || stats.Total().Forgotten != 1 || stats.Facts.Pinned != 1 {
			t.Errorf("sweep 5 years on = %+v, %v; want the episode forgotten and the pinned fact kept", stats, err)
		}
		if stateOf(t, store, ns, a).Forgotten() {
			t.Error("pinned fact forgotten")
		}
		if _, err := PinItems(ctx, store, ns, m, far, false, a); err != nil {
			t.Fatal(err)
		}
		if s := stateOf(t, store, ns, a); s.Pinned || m.Retention(s, 1, far) != 1 {
			t.Errorf("after unpin: %+v (R must restart at 1)", s)
		}
	})
}
