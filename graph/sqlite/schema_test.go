package sqlite_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// TestOpenDropsTheMentionsByEntityIndex: a file at schema version 8 holds
// mentions_entity, which nothing reads; opening it drops the index, keeps
// the mentions and records version 9.
func TestOpenDropsTheMentionsByEntityIndex(t *testing.T) {
	ns := kgmem.Namespace("schema/mentions")
	ep, e := graphtest.Episode(ns, "ep_sm_1", "Ann", "Ann met Bob"), graphtest.Entity(ns, "ent_sm_bob", "Bob")
	s, path := openTemp(t)
	if err := s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{ep}, Entities: []kgmem.Entity{e},
		Mentions: []kgmem.Mention{{EpisodeID: ep.ID, EntityID: e.ID}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{`CREATE INDEX mentions_entity ON mentions (namespace, entity_id)`, `PRAGMA user_version = 8`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	indexes := func() int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'mentions_entity'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if indexes() != 1 {
		t.Fatal("mentions_entity not created at version 8")
	}

	s, err = sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if indexes() != 0 {
		t.Errorf("mentions_entity still there after Open")
	}
	var version, mentions int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM mentions WHERE namespace = ?`, string(ns)).Scan(&mentions); err != nil {
		t.Fatal(err)
	}
	if version < 9 || mentions != 1 {
		t.Errorf("after Open: schema version %d, %d mentions; want 9 or later and 1", version, mentions)
	}
}

// TestOpenStartsCurvesAtLearningTime: a file at schema version 9 holds
// records whose forgetting curves start at their messages' (back-dated)
// time, some forgotten for it; opening it restarts those curves at the
// records' creation, remembers them again and records version 10.
func TestOpenStartsCurvesAtLearningTime(t *testing.T) {
	ns := kgmem.Namespace("schema/learning")
	s, path := openTemp(t)
	if err := s.Apply(t.Context(), graphtest.BackDated(ns)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`PRAGMA user_version = 9`); err != nil {
		t.Fatal(err)
	}

	s, err = sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	graphtest.CheckLearningTime(t, s, ns)
	var version int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version < 10 {
		t.Errorf("after Open: schema version %d, want 10 or later", version)
	}
}

// TestOpenAddsItemExpiry: a file at schema version 10 has items without a
// TTL or expiry; opening it adds them (its items never expire) and records
// version 11, after which items keep an expiry.
func TestOpenAddsItemExpiry(t *testing.T) {
	ns := kgmem.Namespace("schema/ttl")
	old := graphtest.Item(ns, "old", `{"v":1}`, "old")
	s, path := openTemp(t)
	if err := s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Items: []kgmem.Item{old}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{`DROP INDEX items_expires`, `ALTER TABLE items DROP COLUMN expires_at`,
		`ALTER TABLE items DROP COLUMN ttl_minutes`, `PRAGMA user_version = 10`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	s, err = sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Items(t.Context(), ns, []string{old.ID})
	if err != nil || len(got) != 1 || got[0].ExpiresAt != nil {
		t.Fatalf("the old item after Open: %+v, %v; want it, without an expiry", got, err)
	}
	expiring := graphtest.Item(ns, "new", `{"v":2}`, "new")
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	expiring.TTL, expiring.ExpiresAt = 5, &at
	if err := s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Items: []kgmem.Item{expiring}}); err != nil {
		t.Fatal(err)
	}
	ids, err := s.ExpiredItems(t.Context(), ns, at, 10)
	if err != nil || len(ids) != 1 || ids[0] != expiring.ID {
		t.Errorf("ExpiredItems after Open = %v, %v; want [%s]", ids, err, expiring.ID)
	}
	var version int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version < 11 {
		t.Errorf("after Open: schema version %d, want 11 or later", version)
	}
}
