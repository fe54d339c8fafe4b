package graphtest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// T0 is the suite's reference instant: millisecond precision, UTC.
var t0 = time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.UTC)

// at returns t0 plus d hours.
func at(hours int) time.Time { return t0.Add(time.Duration(hours) * time.Hour) }

// Entity returns a minimal valid entity of ns for tests: id, name, type Person,
// the given aliases and created/updated at a fixed instant.
func Entity(ns kgmem.Namespace, id, name string, aliases ...string) kgmem.Entity {
	return kgmem.Entity{
		ID: id, Namespace: ns, Name: name, Aliases: aliases, Type: kgmem.TypePerson,
		CreatedAt: t0, UpdatedAt: t0,
	}
}

// Fact returns a minimal valid current fact of ns for tests linking subject to
// object by predicate, with text, confidence 0.9 and importance 5.
func Fact(ns kgmem.Namespace, id, subject, predicate, object, text string) kgmem.Fact {
	return kgmem.Fact{
		ID: id, Namespace: ns, SubjectID: subject, Predicate: predicate, ObjectID: object,
		Text: text, Confidence: 0.9, Importance: 5, CreatedAt: t0,
	}
}

// Episode returns a minimal valid episode of ns for tests said by speaker.
func Episode(ns kgmem.Namespace, id, speaker, content string) kgmem.Episode {
	return kgmem.Episode{
		ID: id, Namespace: ns, ThreadID: "thread-1", MessageID: id, Role: "user",
		Name: speaker, Content: content, Timestamp: t0, CreatedAt: t0,
	}
}

// wantErr fails the test unless err wraps kind.
func wantErr(t *testing.T, what string, err, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("%s: got error %v, want one wrapping %v", what, err, kind)
	}
}

// entityIDs returns the ids of es in order.
func entityIDs(es []kgmem.Entity) []string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

// factIDs returns the ids of fs in order.
func factIDs(fs []kgmem.Fact) []string {
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	return ids
}

// episodeIDs returns the ids of es in order.
func episodeIDs(es []kgmem.Episode) []string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

// hitIDs returns the ids of hits in order.
func hitIDs(hits []kgmem.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// sorted returns a sorted copy of ids.
func sorted(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// sameIDs fails the test unless got and want hold the same ids in the same order.
func sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got ids %q, want %q", what, got, want)
	}
}

// sameSet fails the test unless got and want hold the same ids in any order.
func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	sameIDs(t, what, sorted(got), sorted(want))
}

// checkTime fails the test unless got is in UTC and within a millisecond of
// want (zero stays zero).
func checkTime(t *testing.T, field string, got, want time.Time) {
	t.Helper()
	if want.IsZero() {
		if !got.IsZero() {
			t.Errorf("%s: got %v, want the zero time", field, got)
		}
		return
	}
	if got.Location() != time.UTC {
		t.Errorf("%s: got location %v, want UTC", field, got.Location())
	}
	if d := got.Sub(want); d <= -time.Millisecond || d >= time.Millisecond {
		t.Errorf("%s: got %v, want %v (at millisecond precision)", field, got, want.UTC())
	}
}

// checkDecay compares two decay states.
func checkDecay(t *testing.T, field string, got, want kgmem.DecayState) {
	t.Helper()
	checkTime(t, field+".LastReinforcedAt", got.LastReinforcedAt, want.LastReinforcedAt)
	checkTime(t, field+".ForgottenAt", got.ForgottenAt, want.ForgottenAt)
	got.LastReinforcedAt, want.LastReinforcedAt = time.Time{}, time.Time{}
	got.ForgottenAt, want.ForgottenAt = time.Time{}, time.Time{}
	if got != want {
		t.Errorf("%s: got %+v, want %+v", field, got, want)
	}
}

// checkEqual compares two values after the caller has blanked what it checked
// separately; nil and empty slices and maps count as equal.
func checkEqual(t *testing.T, field string, got, want any) {
	t.Helper()
	if isEmpty(got) && isEmpty(want) {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %#v\n want %#v", field, got, want)
	}
}

// isEmpty reports whether v is a nil or empty slice or map.
func isEmpty(v any) bool {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map:
		return rv.Len() == 0
	case reflect.Invalid:
		return true
	}
	return false
}

// checkEntity compares a read entity with the written one.
func checkEntity(t *testing.T, got, want kgmem.Entity) {
	t.Helper()
	p := "entity " + want.ID
	checkTime(t, p+".CreatedAt", got.CreatedAt, want.CreatedAt)
	checkTime(t, p+".UpdatedAt", got.UpdatedAt, want.UpdatedAt)
	checkDecay(t, p+".Decay", got.Decay, want.Decay)
	checkEqual(t, p+".Aliases", got.Aliases, want.Aliases)
	checkEqual(t, p+".Attributes", got.Attributes, want.Attributes)
	scalars := func(e kgmem.Entity) [5]string {
		return [5]string{e.ID, string(e.Namespace), e.Name, e.Type, e.Summary}
	}
	if scalars(got) != scalars(want) {
		t.Errorf("%s: got id/namespace/name/type/summary %q, want %q", p, scalars(got), scalars(want))
	}
}

// checkFact compares a read fact with the written one; SubjectName and
// ObjectName are compared with the given names (stores fill them on read).
func checkFact(t *testing.T, got, want kgmem.Fact, subjectName, objectName string) {
	t.Helper()
	p := "fact " + want.ID
	checkTime(t, p+".ValidAt", got.ValidAt, want.ValidAt)
	checkTime(t, p+".InvalidAt", got.InvalidAt, want.InvalidAt)
	checkTime(t, p+".CreatedAt", got.CreatedAt, want.CreatedAt)
	checkTime(t, p+".ExpiredAt", got.ExpiredAt, want.ExpiredAt)
	checkDecay(t, p+".Decay", got.Decay, want.Decay)
	checkEqual(t, p+".Episodes", got.Episodes, want.Episodes)
	checkEqual(t, p+".Attributes", got.Attributes, want.Attributes)
	scalars := func(f kgmem.Fact, sn, on string) string {
		return fmt.Sprintf("id=%q ns=%q s=%q p=%q o=%q sn=%q on=%q text=%q conf=%v imp=%d",
			f.ID, f.Namespace, f.SubjectID, f.Predicate, f.ObjectID, sn, on, f.Text, f.Confidence, f.Importance)
	}
	if g, w := scalars(got, got.SubjectName, got.ObjectName), scalars(want, subjectName, objectName); g != w {
		t.Errorf("%s:\n got  %s\n want %s", p, g, w)
	}
}

// checkEpisode compares a read episode with the written one.
func checkEpisode(t *testing.T, got, want kgmem.Episode) {
	t.Helper()
	p := "episode " + want.ID
	checkTime(t, p+".Timestamp", got.Timestamp, want.Timestamp)
	checkTime(t, p+".CreatedAt", got.CreatedAt, want.CreatedAt)
	checkDecay(t, p+".Decay", got.Decay, want.Decay)
	checkEqual(t, p+".Metadata", got.Metadata, want.Metadata)
	scalars := func(e kgmem.Episode) [7]string {
		return [7]string{e.ID, string(e.Namespace), e.ThreadID, e.MessageID, e.Role, e.Name, e.Content}
	}
	if scalars(got) != scalars(want) {
		t.Errorf("%s: got %q, want %q", p, scalars(got), scalars(want))
	}
}
