package llmtest

import (
	"encoding/json"
	"testing"
)

func TestExtractionJSON(t *testing.T) {
	raw := ExtractionJSON([]Entity{{Name: "Bob", Type: "Person", Aliases: []string{"Bobby"}}, {Name: "ML team", Type: "Team"}},
		[]Fact{{Subject: "Bobby", Predicate: "leads", Object: "ML team", ValidAt: "2025-01-01T00:00:00Z"}, {Subject: "Bob", Predicate: "likes_a_lot", Object: "tea", Message: 2, Importance: 9}})
	var got struct {
		Entities []map[string]any `json:"entities"`
		Facts    []map[string]any `json:"facts"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"entity aliases", got.Entities[0]["aliases"], []any{"Bobby"}},
		{"alias type", got.Facts[0]["subject_type"], "Person"},
		{"object type", got.Facts[0]["object_type"], "Team"},
		{"valid_at", got.Facts[0]["valid_at"], "2025-01-01T00:00:00Z"},
		{"null invalid_at", got.Facts[0]["invalid_at"], nil},
		{"default confidence", got.Facts[0]["confidence"], 0.9},
		{"default importance", got.Facts[0]["importance"], 5.0},
		{"default message", got.Facts[0]["message"], 1.0},
		{"default text", got.Facts[1]["fact"], "Bob likes a lot tea."},
		{"unknown object type", got.Facts[1]["object_type"], nil},
		{"message", got.Facts[1]["message"], 2.0},
		{"importance", got.Facts[1]["importance"], 9.0},
	}
	for _, tt := range tests {
		gb, _ := json.Marshal(tt.got)
		wb, _ := json.Marshal(tt.want)
		if string(gb) != string(wb) {
			t.Errorf("%s = %s, want %s", tt.name, gb, wb)
		}
	}
}

func TestJudgeJSON(t *testing.T) {
	raw := JudgeJSON([]string{"ent_1", ""}, []FactDecision{{Decision: "invalidate", TargetIDs: []string{"fact_1"}, Reason: "moved"}})
	want := `{"entities":[{"id":1,"match_id":"ent_1"},{"id":2,"match_id":null}],"facts":[{"id":1,"decision":"invalidate","target_ids":["fact_1"],"reason":"moved"}]}`
	if raw != want {
		t.Errorf("JudgeJSON = %s, want %s", raw, want)
	}
}
