package graphtest

import (
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// threeYears is how far BackDated sets the curves of its records back.
const threeYears = 3 * 365 * 24 * time.Hour

// BackDated is a change set as stores written before the forgetting curve
// started at learning time hold it: an episode, a fact and an entity whose
// curves start at their message's time, three years before the records were
// created, the episode and the fact forgotten for it by a sweep an hour
// after; and an entity recalled after its creation, which no migration may
// touch. CheckLearningTime checks them after the store's migration.
func BackDated(ns kgmem.Namespace) kgmem.ChangeSet {
	said, swept := t0.Add(-threeYears), at(1)
	ep := Episode(ns, "ep_bd_1", "Ann", "I took up sailing this spring.")
	ep.Timestamp = said
	ep.Decay = kgmem.DecayState{Stability: 5, LastReinforcedAt: said, ForgottenAt: swept}
	ann, boat := Entity(ns, "ent_bd_ann", "Ann"), Entity(ns, "ent_bd_boat", "Boat")
	ann.Decay = kgmem.DecayState{Stability: 5, LastReinforcedAt: said}
	boat.Decay = kgmem.DecayState{Stability: 9, LastReinforcedAt: at(2), Reinforcements: 2}
	f := Fact(ns, "fact_bd_sails", ann.ID, "sails", boat.ID, "Ann sails a boat.")
	f.Episodes = []string{ep.ID}
	f.Decay = kgmem.DecayState{Stability: 5, LastReinforcedAt: said, ForgottenAt: swept}
	return kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{ep}, Entities: []kgmem.Entity{ann, boat}, Facts: []kgmem.Fact{f}}
}

// CheckLearningTime checks what a store's migration made of BackDated(ns):
// each back-dated curve restarts at its record's creation and a record
// forgotten for it is remembered again; the message keeps its own time; the
// recalled entity keeps its state.
func CheckLearningTime(t *testing.T, g kgmem.GraphStore, ns kgmem.Namespace) {
	t.Helper()
	ctx := t.Context()
	want := BackDated(ns)
	eps, err := g.Episodes(ctx, ns, []string{want.Episodes[0].ID})
	if err != nil || len(eps) != 1 {
		t.Fatalf("episode: %v, %d found", err, len(eps))
	}
	facts, err := g.Facts(ctx, ns, []string{want.Facts[0].ID})
	if err != nil || len(facts) != 1 {
		t.Fatalf("fact: %v, %d found", err, len(facts))
	}
	ents, err := g.Entities(ctx, ns, []string{want.Entities[0].ID, want.Entities[1].ID})
	if err != nil || len(ents) != 2 {
		t.Fatalf("entities: %v, %d found", err, len(ents))
	}
	restarted := map[string]kgmem.DecayState{eps[0].ID: eps[0].Decay, facts[0].ID: facts[0].Decay}
	for _, ent := range ents {
		if ent.ID == want.Entities[0].ID {
			restarted[ent.ID] = ent.Decay
		} else if !ent.Decay.LastReinforcedAt.Equal(want.Entities[1].Decay.LastReinforcedAt) || ent.Decay.Reinforcements != 2 {
			t.Errorf("recalled entity %s: %+v, want its state kept", ent.ID, ent.Decay)
		}
	}
	for id, d := range restarted {
		if !d.LastReinforcedAt.Equal(t0) || d.Forgotten() || d.Stability != 5 {
			t.Errorf("%s: %+v, want the curve from its creation (%v), not forgotten, stability kept", id, d, t0)
		}
	}
	if !eps[0].Timestamp.Equal(t0.Add(-threeYears)) {
		t.Errorf("episode timestamp %v, want the message's own time %v", eps[0].Timestamp, t0.Add(-threeYears))
	}
}
