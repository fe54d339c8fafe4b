package longmemeval

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestBuildHaystack(t *testing.T) {
	qs := loadFixture(t)
	tests := []struct {
		q                          int
		ns                         string
		threads                    []string
		ids                        [][]string
		empty, repeated, truncated int
	}{
		{0, "bench/longmemeval/q1", []string{"s1", "s2"}, [][]string{{"s1:0", "s1:1"}, {"s2:1", "s2:2"}}, 1, 0, 0},
		{1, "bench/longmemeval/q2", []string{"a1", "a2", "a3"}, [][]string{{"a1:0", "a1:1"}, {"a2:0", "a2:1"}, {"a3:0", "a3:1"}}, 0, 1, 0},
	}
	for _, tt := range tests {
		h, err := BuildHaystack(qs[tt.q], 0)
		if err != nil {
			t.Fatal(err)
		}
		if string(h.Namespace) != tt.ns || h.Empty != tt.empty || h.Repeated != tt.repeated || h.Truncated != tt.truncated {
			t.Errorf("question %d: namespace %s, empty %d, repeated %d, truncated %d", tt.q, h.Namespace, h.Empty, h.Repeated, h.Truncated)
		}
		var threads []string
		for i, th := range h.Threads {
			threads = append(threads, th.ID)
			var ids []string
			for _, m := range th.Messages {
				ids = append(ids, m.ID)
				if th.Namespace != h.Namespace || m.Name != m.Role || (m.Role != "user" && m.Role != "assistant") || m.Content == "" {
					t.Errorf("question %d message %+v in %s", tt.q, m, th.Namespace)
				}
			}
			if i < len(tt.ids) && !slices.Equal(ids, tt.ids[i]) {
				t.Errorf("question %d thread %s: ids %v, want %v", tt.q, th.ID, ids, tt.ids[i])
			}
		}
		if !slices.Equal(threads, tt.threads) {
			t.Errorf("question %d: threads %v, want %v", tt.q, threads, tt.threads)
		}
	}
	h, _ := BuildHaystack(qs[0], 0)
	m := h.Threads[1].Messages[0]
	if want := time.Date(2023, 5, 2, 11, 30, 0, 0, time.UTC); !m.Timestamp.Equal(want) || m.Role != "user" || m.Content != "The weather is rainy again today." {
		t.Errorf("s2:1 = %+v, want the user's turn at %v", m, want)
	}
	if a := h.Threads[0].Messages[1]; a.Role != "assistant" || a.Name != "assistant" {
		t.Errorf("s1:1 = %+v, want the assistant's turn", a)
	}
}

func TestBuildHaystackTruncates(t *testing.T) {
	q := loadFixture(t)[0]
	q.Sessions = [][]Turn{{{Role: "user", Content: "héllo wörld"}, {Role: "assistant", Content: "ok"}}}
	q.SessionIDs, q.SessionDates = []string{"s"}, q.SessionDates[:1]
	h, err := BuildHaystack(q, 2) // "hé" would split é
	if err != nil {
		t.Fatal(err)
	}
	msgs := h.Threads[0].Messages
	if h.Truncated != 1 || msgs[0].Content != "h" || msgs[1].Content != "ok" || !utf8.ValidString(msgs[0].Content) {
		t.Errorf("truncated %d, contents %q %q", h.Truncated, msgs[0].Content, msgs[1].Content)
	}
	long := strings.Repeat("x", 40<<10)
	q.Sessions[0][0].Content = long
	if h, _ = BuildHaystack(q, 0); h.Truncated != 1 || len(h.Threads[0].Messages[0].Content) != 32<<10 {
		t.Errorf("a 40 KiB turn: truncated %d to %d bytes, want 1 to 32 KiB (the engine's limit)", h.Truncated, len(h.Threads[0].Messages[0].Content))
	}
}

func TestPacks(t *testing.T) {
	q := loadFixture(t)[1] // a1, a2, a3: two messages each
	h, err := BuildHaystack(q, 0)
	if err != nil {
		t.Fatal(err)
	}
	shape := func(packs [][]ThreadBatch) string {
		var b strings.Builder
		for _, p := range packs {
			b.WriteString("[")
			for _, tb := range p {
				b.WriteString(tb.Thread + ":" + strings.Repeat("m", len(tb.Messages)) + " ")
			}
			b.WriteString("]")
		}
		return b.String()
	}
	tests := []struct {
		size int
		want string
	}{
		{50, "[a1:mm a2:mm a3:mm ]"},
		{0, "[a1:mm a2:mm a3:mm ]"},
		{2, "[a1:mm ][a2:mm ][a3:mm ]"},
		{3, "[a1:mm a2:m ][a2:m a3:mm ]"},
		{1, "[a1:m ][a1:m ][a2:m ][a2:m ][a3:m ][a3:m ]"},
	}
	for _, tt := range tests {
		if got := shape(Packs(h, tt.size)); got != tt.want {
			t.Errorf("Packs(size %d) = %s, want %s", tt.size, got, tt.want)
		}
	}
	if got := Packs(h, 3); got[0][1].Messages[0].ID != "a2:0" || got[1][0].Messages[0].ID != "a2:1" {
		t.Errorf("a split thread's messages are out of order: %+v", got)
	}
}

func TestCases(t *testing.T) {
	cases, err := Cases(loadFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 {
		t.Fatalf("%d cases, want 2 (the abstention question left out)", len(cases))
	}
	c := cases[1]
	if c.QuestionID != "q2" || c.Type != "multi-session" || c.Namespace != "bench/longmemeval/q2" ||
		!slices.Equal(c.Evidence, []string{"a1:0", "a2:0"}) || !slices.Equal(c.AnswerSessions, []string{"a1", "a2"}) {
		t.Errorf("case %+v", c)
	}
	if !slices.Equal(cases[0].Evidence, []string{"s1:0"}) {
		t.Errorf("q1 evidence %v", cases[0].Evidence)
	}
	if SessionOf("sharegpt_x_1:12") != "sharegpt_x_1" || MessageID("a", 3) != "a:3" {
		t.Error("SessionOf/MessageID do not round-trip")
	}
}
