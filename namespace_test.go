package kgmem_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

func TestParseNamespace(t *testing.T) {
	cases := []struct {
		in string
		ok bool
	}{
		{"acme", true},
		{"acme/users/u42", true},
		{"a.b-c_d/E9", true},
		{strings.Repeat("x", 64), true},
		{strings.Repeat("a/", 7) + "a", true},
		{"", false},
		{"/acme", false},
		{"acme/", false},
		{"acme//u42", false},
		{"acme/../u42", false},
		{".", false},
		{"a b", false},
		{"acme%2Fu42", false},
		{"ümlaut", false},
		{strings.Repeat("x", 65), false},
		{strings.Repeat("a/", 8) + "a", false},
	}
	for _, tc := range cases {
		ns, err := kgmem.ParseNamespace(tc.in)
		if tc.ok {
			if err != nil || ns.String() != tc.in {
				t.Errorf("ParseNamespace(%q) = %q, %v; want it accepted", tc.in, ns, err)
			}
			continue
		}
		var fe *kgmem.FieldError
		if !errors.Is(err, kgmem.ErrInvalid) || !errors.As(err, &fe) || fe.Field != "namespace" {
			t.Errorf("ParseNamespace(%q) error %v; want a FieldError on namespace wrapping ErrInvalid", tc.in, err)
		}
	}
}

func TestEpisodeIDIsStableAndScoped(t *testing.T) {
	a := kgmem.EpisodeID("ns", "t1", "m1")
	if a != kgmem.EpisodeID("ns", "t1", "m1") {
		t.Fatal("EpisodeID is not deterministic")
	}
	for _, other := range []string{kgmem.EpisodeID("ns2", "t1", "m1"), kgmem.EpisodeID("ns", "t2", "m1"), kgmem.EpisodeID("ns", "t1", "m2"), kgmem.EpisodeID("ns", "t1m", "1")} {
		if other == a {
			t.Errorf("EpisodeID collides across namespace/thread/message: %s", a)
		}
	}
}

func TestFactValidAtInstant(t *testing.T) {
	f := kgmem.Fact{ValidAt: mustTime(t, "2024-01-10T00:00:00Z"), InvalidAt: mustTime(t, "2024-03-01T00:00:00Z")}
	for _, tc := range []struct {
		at   string
		want bool
	}{{"2024-01-01T00:00:00Z", false}, {"2024-01-10T00:00:00Z", true}, {"2024-02-01T00:00:00Z", true}, {"2024-03-01T00:00:00Z", false}} {
		if got := f.ValidAtInstant(mustTime(t, tc.at)); got != tc.want {
			t.Errorf("valid at %s = %v, want %v", tc.at, got, tc.want)
		}
	}
}
