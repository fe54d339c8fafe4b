package locomo

import (
	"testing"
	"time"
)

func TestThreads(t *testing.T) {
	conv := Conversation{ID: "26", Sessions: []Session{
		{Number: 1, Time: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), Turns: []Turn{
			{Speaker: "Caroline", DiaID: "D1:1", Text: "Hey Mel!"},
			{Speaker: "Melanie", DiaID: "D1:2", Text: "Look at this", BlipCaption: "a photo of a lake"},
		}},
		{Number: 2, Time: time.Date(2023, 5, 25, 13, 14, 0, 0, time.UTC), Turns: []Turn{{Speaker: "Caroline", DiaID: "D2:1", Text: "Hi"}}},
	}}
	threads, err := Threads(conv)
	if err != nil {
		t.Fatal(err)
	}
	if len(threads) != 2 || threads[0].ID != "session_1" || threads[1].ID != "session_2" || threads[0].Namespace != "bench/locomo/26" {
		t.Fatalf("threads = %+v", threads)
	}
	m := threads[0].Messages[1]
	if m.ID != "D1:2" || m.Role != "user" || m.Name != "Melanie" || m.Content != "Look at this [photo: a photo of a lake]" ||
		!m.Timestamp.Equal(conv.Sessions[0].Time) || m.Metadata["session"] != 1 {
		t.Errorf("message = %+v", m)
	}
	if threads[1].Messages[0].Content != "Hi" {
		t.Errorf("caption-less content = %q", threads[1].Messages[0].Content)
	}
	if _, err := Threads(Conversation{ID: "a b"}); err == nil {
		t.Error("Threads accepted a conversation id that is no namespace segment")
	}
}

func TestBatches(t *testing.T) {
	msgs := make([]Message, 7)
	for i := range msgs {
		msgs[i].ID = string(rune('a' + i))
	}
	tests := []struct {
		size  int
		sizes []int
	}{
		{3, []int{3, 3, 1}},
		{7, []int{7}},
		{50, []int{7}},
		{1, []int{1, 1, 1, 1, 1, 1, 1}},
		{0, []int{7}},
	}
	for _, tt := range tests {
		got := Batches(msgs, tt.size)
		var sizes []int
		var ids string
		for _, b := range got {
			sizes = append(sizes, len(b))
			for _, m := range b {
				ids += m.ID
			}
		}
		if len(sizes) != len(tt.sizes) || ids != "abcdefg" {
			t.Errorf("Batches(7, %d) sizes %v ids %q; want sizes %v in order", tt.size, sizes, ids, tt.sizes)
			continue
		}
		for i := range sizes {
			if sizes[i] != tt.sizes[i] {
				t.Errorf("Batches(7, %d) sizes %v, want %v", tt.size, sizes, tt.sizes)
			}
		}
	}
	if got := Batches(nil, 5); got != nil {
		t.Errorf("Batches(nil) = %v", got)
	}
}
