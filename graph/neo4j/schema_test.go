package neo4j_test

import (
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
)

// TestOpenStartsCurvesAtLearningTime: a database written before the
// forgetting curve started at learning time holds records whose curves
// start at their messages' (back-dated) time, some forgotten for it;
// opening it restarts those curves at the records' creation and remembers
// them again.
func TestOpenStartsCurvesAtLearningTime(t *testing.T) {
	ns := kgmem.Namespace("schema/learning")
	scope := "t" + kgmem.NewID("")[1:]
	s := openScope(t, scope)
	if err := s.Apply(t.Context(), graphtest.BackDated(ns)); err != nil {
		t.Fatal(err)
	}
	if err := s.UnmarkLearningTimeMigration(t.Context()); err != nil {
		t.Fatal(err)
	}
	graphtest.CheckLearningTime(t, openScope(t, scope), ns)
}
