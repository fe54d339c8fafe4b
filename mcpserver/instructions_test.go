package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/kgmem/kgmem/mcpserver"
)

// TestInstructionTools keeps an agent's instructions through the tools, as
// an agent does: read (none yet), write twice, list, read an old version,
// restore it; every version stays.
func TestInstructionTools(t *testing.T) {
	f := newFixture(t)
	cs := f.session(f.writeKey, "")
	ns := "acme/users/bot"

	var got mcpserver.GetInstructionsOut
	if res := call(t, cs, "get_instructions", map[string]any{"namespace": ns}, &got); res.IsError || got.Version != 0 || got.Versions != 0 || got.Name != "agent" {
		t.Fatalf("get before any write: %+v %s", got, textOf(res))
	}
	var v mcpserver.VersionOut
	if res := call(t, cs, "update_instructions", map[string]any{"namespace": ns, "prompt": "Answer in English."}, &v); res.IsError || v.Version != 1 {
		t.Fatalf("first update: %+v %s", v, textOf(res))
	}
	if res := call(t, cs, "update_instructions", map[string]any{"namespace": ns, "prompt": "Answer in French.", "note": "the user asked for French"}, &v); res.IsError || v.Version != 2 {
		t.Fatalf("second update: %+v %s", v, textOf(res))
	}
	if res := call(t, cs, "get_instructions", map[string]any{"namespace": ns}, &got); res.IsError || got.Version != 2 || got.Versions != 2 || got.Prompt != "Answer in French." {
		t.Fatalf("get latest: %+v %s", got, textOf(res))
	}
	if res := call(t, cs, "get_instructions", map[string]any{"namespace": ns, "version": 1}, &got); res.IsError || got.Prompt != "Answer in English." {
		t.Fatalf("get version 1: %+v %s", got, textOf(res))
	}
	if res := call(t, cs, "restore_instructions", map[string]any{"namespace": ns, "version": 1}, &v); res.IsError || v.Version != 3 || v.RestoredFrom != 1 || v.Prompt != "Answer in English." {
		t.Fatalf("restore: %+v %s", v, textOf(res))
	}
	var list mcpserver.ListInstructionVersionsOut
	res := call(t, cs, "list_instruction_versions", map[string]any{"namespace": ns}, &list)
	if res.IsError || list.Total != 3 || len(list.Versions) != 3 {
		t.Fatalf("list: %+v %s", list, textOf(res))
	}
	var prompts []string
	for _, v := range list.Versions {
		prompts = append(prompts, v.Prompt)
	}
	if strings.Join(prompts, "|") != "Answer in English.|Answer in French.|Answer in English." || list.Versions[1].Note != "the user asked for French" {
		t.Fatalf("history %+v", list.Versions)
	}
	if res := call(t, cs, "list_instruction_versions", map[string]any{"namespace": ns, "limit": 1}, &list); res.IsError || len(list.Versions) != 1 || list.Versions[0].Version != 3 {
		t.Fatalf("list limit 1: %+v %s", list, textOf(res))
	}
	// Instructions of another name are kept apart.
	if res := call(t, cs, "get_instructions", map[string]any{"namespace": ns, "name": "triage"}, &got); res.IsError || got.Versions != 0 {
		t.Fatalf("other name: %+v %s", got, textOf(res))
	}

	// Bad arguments are tool errors naming the field and write nothing.
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"update_instructions", map[string]any{"namespace": ns, "prompt": "  "}, "prompt"},
		{"update_instructions", map[string]any{"namespace": ns, "prompt": "x", "name": "a/b"}, "name"},
		{"restore_instructions", map[string]any{"namespace": ns, "version": 9}, "version"},
		{"get_instructions", map[string]any{"namespace": ns, "version": 9}, "version"},
		{"list_instruction_versions", map[string]any{"namespace": ns, "limit": 500}, "limit"},
		{"get_instructions", map[string]any{"namespace": "acme/users/a/b/c/d/e"}, "namespace"},
	} {
		res := call(t, cs, tc.tool, tc.args, nil)
		if !res.IsError || !strings.Contains(textOf(res), tc.field) {
			t.Errorf("%s %v: isError %v, %q; want an error naming %s", tc.tool, tc.args, res.IsError, textOf(res), tc.field)
		}
	}
	if res := call(t, cs, "get_instructions", map[string]any{"namespace": ns}, &got); res.IsError || got.Versions != 3 {
		t.Fatalf("bad arguments changed the history: %+v", got)
	}
}
