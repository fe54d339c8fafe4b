package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/chatlog"
	"github.com/kgmem/kgmem/chatlog/importer"
	"github.com/kgmem/kgmem/memory"
)

// TestImportedHistoryIsNotForgotten pins when the forgetting curve starts:
// when kgmem learns a record, not at its message's timestamp. A chat log of
// messages one and three years old (three years would enter at retention
// 0.13, under the 0.15 threshold, if the curve started at the message)
// survives a day of hourly sweeps and stays in default search, with its
// world time kept; without recall, it fades once enough learning time has
// passed.
func TestImportedHistoryIsNotForgotten(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	const ns = kgmem.Namespace("imported")
	learned := h.clock.Now()
	var log bytes.Buffer
	topics := []string{"sailing", "pottery", "chess", "violin", "astronomy", "gardening"}
	for i, topic := range topics {
		age := 365 * 24 * time.Hour // a year old
		if i%2 == 1 {
			age *= 3 // three years old
		}
		line, err := json.Marshal(map[string]string{"namespace": string(ns), "thread_id": "old-chat", "role": "user", "name": "Ann",
			"content": fmt.Sprintf("I took up %s this spring.", topic), "timestamp": learned.Add(-age).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)})
		if err != nil {
			t.Fatal(err)
		}
		log.Write(append(line, '\n'))
	}
	r, err := chatlog.Open(&log, chatlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	im, err := importer.New(importer.Config{Sink: h.engine})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := im.Run(ctx, r)
	if err != nil || sum.Created != int64(len(topics)) {
		t.Fatalf("import: %v, %+v; want %d messages created", err, sum.Stats, len(topics))
	}

	found := func() map[string]memory.EpisodeResult {
		t.Helper()
		out := map[string]memory.EpisodeResult{}
		for _, topic := range topics {
			res, err := h.engine.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "took up " + topic, Include: []kgmem.Kind{kgmem.KindEpisode}, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Episodes) == 1 {
				out[topic] = res.Episodes[0]
			}
		}
		return out
	}
	for hour := range 24 {
		stats, err := h.engine.Sweep(ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Episodes.Forgotten != 0 {
			t.Fatalf("sweep %d, %v after the import, forgot %d of %d imported messages", hour+1, h.clock.Now().Sub(learned), stats.Episodes.Forgotten, len(topics))
		}
		h.clock.Advance(time.Hour)
	}
	got := found()
	for _, topic := range topics {
		ep, ok := got[topic]
		if !ok {
			t.Fatalf("default search a day after the import does not find the %s message", topic)
		}
		if ep.Decay.LastReinforcedAt != learned || ep.Timestamp.After(learned.Add(-360*24*time.Hour)) {
			t.Errorf("%s message: curve from %v, said at %v; want the curve from the import (%v) and the message's own time kept",
				topic, ep.Decay.LastReinforcedAt, ep.Timestamp, learned)
		}
	}

	// Without recall, what was learned fades with learning time.
	h.clock.Advance(3 * 365 * 24 * time.Hour)
	stats, err := h.engine.Sweep(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Episodes.Forgotten != len(topics) {
		t.Fatalf("three years after the import without recall, the sweep forgot %d of %d messages", stats.Episodes.Forgotten, len(topics))
	}
	if got := found(); len(got) != 0 {
		t.Errorf("forgotten messages still in default search: %v", got)
	}
}
