package triples

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     string // canonical JSON of the result
		repaired bool
		wantErr  bool
	}{
		{name: "plain", in: `{"facts":[]}`, want: `{"facts":[]}`},
		{name: "prose around", in: "Sure! Here is the JSON:\n{\"a\":1}\nHope this helps {x}", want: `{"a":1}`},
		{name: "code fence", in: "```json\n{\"a\": [1, 2]}\n```", want: `{"a":[1,2]}`},
		{name: "think block", in: "<think>maybe {\"wrong\":1}</think>\n{\"a\":2}", want: `{"a":2}`},
		{name: "trailing commas", in: `{"a":[1,2,],"b":{"c":3,},}`, want: `{"a":[1,2],"b":{"c":3}}`, repaired: true},
		{name: "comma inside string kept", in: `{"a":"x,]"}`, want: `{"a":"x,]"}`},
		{name: "truncated mid value", in: `{"entities":[{"name":"Bob","type":"Per`, want: `{"entities":[{"name":"Bob"}]}`, repaired: true},
		{name: "truncated after element", in: `{"facts":[{"s":"a"},{"s":"b"},{"s":"c`, want: `{"facts":[{"s":"a"},{"s":"b"},{}]}`, repaired: true},
		{name: "truncated fence", in: "```json\n{\"facts\":[{\"s\":\"a\"}", want: `{"facts":[{"s":"a"}]}`, repaired: true},
		{name: "truncated in string with brace", in: `{"a":[{"t":"x {y"`, want: `{"a":[{}]}`, repaired: true},
		{name: "no json", in: "I cannot help with that.", wantErr: true},
		{name: "garbage", in: "{{{", wantErr: true},
		{name: "unbalanced close", in: `{"a":1}}`, want: `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, repaired, err := extractJSON(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("extractJSON(%q) = %q, want error", tt.in, raw)
				}
				return
			}
			if err != nil {
				t.Fatalf("extractJSON(%q): %v", tt.in, err)
			}
			var got, want any
			if err := json.Unmarshal([]byte(raw), &got); err != nil {
				t.Fatalf("result %q is not JSON: %v", raw, err)
			}
			_ = json.Unmarshal([]byte(tt.want), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("extractJSON(%q) = %s, want %s", tt.in, raw, tt.want)
			}
			if (repaired != "") != tt.repaired {
				t.Errorf("repaired = %q, want repaired=%v", repaired, tt.repaired)
			}
		})
	}
}
