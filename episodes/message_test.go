package episodes_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/episodes"
)

var now = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

func TestBuild(t *testing.T) {
	ts := time.Date(2024, 5, 1, 8, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	eps, err := episodes.Build("ns", "t1", []episodes.Message{
		{ID: "m1", Name: "Ann", Content: "hello", Timestamp: ts, Metadata: map[string]any{"k": "v"}},
		{Role: "assistant", Content: "hi Ann"},
	}, now, episodes.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if eps[0].ID != kgmem.EpisodeID("ns", "t1", "m1") || eps[0].Role != "user" || !eps[0].Timestamp.Equal(ts) || eps[0].Timestamp.Location() != time.UTC {
		t.Errorf("first episode %+v", eps[0])
	}
	if eps[1].Timestamp != now || eps[1].MessageID == "" || eps[1].CreatedAt != now {
		t.Errorf("second episode %+v: want now as timestamp and a generated message id", eps[1])
	}
}

func TestBuildIDs(t *testing.T) {
	ts := time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)
	build := func(m episodes.Message) string {
		eps, err := episodes.Build("ns", "t", []episodes.Message{m}, now, episodes.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		return eps[0].ID
	}
	// Without an id, a timestamped message is recognised when posted again…
	if a, b := build(episodes.Message{Content: "ok", Timestamp: ts}), build(episodes.Message{Content: "ok", Timestamp: ts}); a != b {
		t.Error("the same timestamped message got two ids")
	}
	// …but two untimed "ok"s are two messages.
	if a, b := build(episodes.Message{Content: "ok"}), build(episodes.Message{Content: "ok"}); a == b {
		t.Error("two messages without id or timestamp were merged")
	}
}

func TestBuildRejects(t *testing.T) {
	lim := episodes.Limits{MaxMessages: 2, MaxContentBytes: 10, MaxFieldBytes: 5}
	cases := []struct {
		name   string
		thread string
		msgs   []episodes.Message
		field  string
	}{
		{"no messages", "t", nil, "messages"},
		{"too many", "t", []episodes.Message{{Content: "a"}, {Content: "b"}, {Content: "c"}}, "messages"},
		{"empty content", "t", []episodes.Message{{Content: ""}}, "messages[0].content"},
		{"content too long", "t", []episodes.Message{{Content: strings.Repeat("x", 11)}}, "messages[0].content"},
		{"invalid UTF-8", "t", []episodes.Message{{Content: "a\xffb"}}, "messages[0].content"},
		{"long id", "t", []episodes.Message{{ID: "123456", Content: "a"}}, "messages[0].id"},
		{"long name", "t", []episodes.Message{{Name: "Annabel", Content: "a"}}, "messages[0].name"},
		{"bad role", "t", []episodes.Message{{Role: "bot", Content: "a"}}, "messages[0].role"},
		{"long thread", "thread-1", []episodes.Message{{Content: "a"}}, "thread_id"},
		{"repeated id", "t", []episodes.Message{{ID: "a", Content: "x"}, {ID: "a", Content: "y"}}, "messages[1].id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := episodes.Build("ns", tc.thread, tc.msgs, now, lim)
			var fe *kgmem.FieldError
			if !errors.Is(err, kgmem.ErrInvalid) || !errors.As(err, &fe) || fe.Field != tc.field {
				t.Errorf("error %v, want a field error on %s", err, tc.field)
			}
		})
	}
}
