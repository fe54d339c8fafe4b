package mcpserver

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/kgmem/kgmem/procedural"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The procedural-memory tools: an agent keeps its own instructions (its
// standing rules) in kgmem, versioned (package procedural).
var (
	toolGetInstructions = toolSpec{name: "get_instructions", title: "Read instructions", readOnly: true,
		description: "Read your standing instructions (the rules you follow, kept in memory across conversations): the latest version, " +
			"or the one numbered `version`. Call it at the start of a task. Returns the text, its version number and how many versions exist; " +
			"version 0 and an empty prompt when none was written yet.",
		limits: func(in *jsonschema.Schema) { nameLimits(in); within(prop(in, "version"), 1, math.MaxInt32) }}
	toolListInstructionVersions = toolSpec{name: "list_instruction_versions", title: "List instruction versions", readOnly: true,
		description: "The history of your instructions, oldest first: each version's number, text, note and whether it restored an earlier one. " +
			"Returns the latest `limit` versions (default 20) and the total.",
		limits: func(in *jsonschema.Schema) { nameLimits(in); within(prop(in, "limit"), 1, maxVersionPage) }}
	toolUpdateInstructions = toolSpec{name: "update_instructions", title: "Update instructions",
		description: "Write a new version of your instructions: pass the full new `prompt` (it replaces the text, so keep the rules that still hold) " +
			"and a short `note` saying why, for instance the user's feedback. Earlier versions are kept and can be restored.",
		limits: func(in *jsonschema.Schema) {
			nameLimits(in)
			lengths(prop(in, "prompt"), 1, procedural.MaxPromptBytes)
			lengths(prop(in, "note"), 0, procedural.MaxNoteBytes)
		}}
	toolRestoreInstructions = toolSpec{name: "restore_instructions", title: "Restore instructions",
		description: "Make an earlier version of your instructions current again (by its `version` number from list_instruction_versions). " +
			"It writes that text as a new version, so the versions after it are kept and the restore can itself be undone.",
		limits: func(in *jsonschema.Schema) {
			nameLimits(in)
			within(prop(in, "version"), 1, math.MaxInt32)
			lengths(prop(in, "note"), 0, procedural.MaxNoteBytes)
		}}
)

// maxVersionPage bounds the versions list_instruction_versions returns.
const maxVersionPage = 100

// nameLimits bounds the name of instructions: one namespace segment.
func nameLimits(in *jsonschema.Schema) {
	name := prop(in, "name")
	lengths(name, 0, 64)
	name.Pattern = `^[A-Za-z0-9_.-]*$`
}

// InstructionsIn names one agent's instructions.
type InstructionsIn struct {
	Namespace string `json:"namespace,omitempty" jsonschema:"whose memory, for instance acme/agents/support"`
	Name      string `json:"name,omitempty" jsonschema:"which instructions, when you keep several (default agent)"`
}

// VersionOut is one version of instructions as the tools return it.
type VersionOut struct {
	Version      int    `json:"version"`
	Prompt       string `json:"prompt"`
	Note         string `json:"note,omitempty"`
	RestoredFrom int    `json:"restored_from,omitempty"`
	CreatedAt    string `json:"created_at,omitempty"`
}

func versionOut(v procedural.Version) VersionOut {
	return VersionOut{Version: v.Number, Prompt: v.Prompt, Note: v.Note, RestoredFrom: v.RestoredFrom, CreatedAt: day(v.CreatedAt)}
}

// openInstructions returns the instructions a call names.
func (t *tools) openInstructions(req *mcp.CallToolRequest, in InstructionsIn) (*procedural.Instructions, error) {
	c, ns, err := t.connect(req, in.Namespace)
	if err != nil {
		return nil, err
	}
	return procedural.Open(procedural.ClientStore(c), ns, in.Name)
}

// GetInstructionsIn is the input of get_instructions.
type GetInstructionsIn struct {
	InstructionsIn
	Version int `json:"version,omitempty" jsonschema:"the version to read (default the latest)"`
}

// GetInstructionsOut is the output of get_instructions.
type GetInstructionsOut struct {
	Name string `json:"name"`
	VersionOut
	// Versions is how many versions exist.
	Versions int `json:"versions"`
}

func (t *tools) getInstructions(ctx context.Context, req *mcp.CallToolRequest, in GetInstructionsIn) (*mcp.CallToolResult, GetInstructionsOut, error) {
	ins, err := t.openInstructions(req, in.InstructionsIn)
	if err != nil {
		return nil, GetInstructionsOut{}, toolError(err)
	}
	vs, err := ins.Versions(ctx)
	if err != nil {
		return nil, GetInstructionsOut{}, toolError(err)
	}
	if len(vs) == 0 && in.Version == 0 {
		return text(fmt.Sprintf("No instructions named %q yet; write them with update_instructions.", ins.Name)),
			GetInstructionsOut{Name: ins.Name}, nil
	}
	v, err := ins.Version(ctx, in.Version)
	if err != nil {
		return nil, GetInstructionsOut{}, toolError(err)
	}
	out := GetInstructionsOut{Name: ins.Name, VersionOut: versionOut(v), Versions: len(vs)}
	return text(fmt.Sprintf("Instructions %q, version %d of %d:\n%s", ins.Name, v.Number, len(vs), v.Prompt)), out, nil
}

// ListInstructionVersionsIn is the input of list_instruction_versions.
type ListInstructionVersionsIn struct {
	InstructionsIn
	Limit int `json:"limit,omitempty" jsonschema:"how many of the latest versions (default 20)"`
}

// ListInstructionVersionsOut is the output of list_instruction_versions.
type ListInstructionVersionsOut struct {
	Name string `json:"name"`
	// Total is how many versions exist; Versions the latest of them, oldest first.
	Total    int          `json:"total"`
	Versions []VersionOut `json:"versions"`
}

func (t *tools) listInstructionVersions(ctx context.Context, req *mcp.CallToolRequest, in ListInstructionVersionsIn) (*mcp.CallToolResult, ListInstructionVersionsOut, error) {
	if in.Limit < 0 || in.Limit > maxVersionPage {
		return nil, ListInstructionVersionsOut{}, fmt.Errorf("limit: is %d, must be within 1..%d", in.Limit, maxVersionPage)
	}
	ins, err := t.openInstructions(req, in.InstructionsIn)
	if err != nil {
		return nil, ListInstructionVersionsOut{}, toolError(err)
	}
	vs, err := ins.Versions(ctx)
	if err != nil {
		return nil, ListInstructionVersionsOut{}, toolError(err)
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	out := ListInstructionVersionsOut{Name: ins.Name, Total: len(vs), Versions: []VersionOut{}}
	lines := []string{fmt.Sprintf("Instructions %q: %d versions.", ins.Name, len(vs))}
	for _, v := range vs[max(0, len(vs)-limit):] {
		out.Versions = append(out.Versions, versionOut(v))
		line := fmt.Sprintf("- version %d (%s)", v.Number, day(v.CreatedAt))
		if v.Note != "" {
			line += ": " + v.Note
		}
		lines = append(lines, line+"\n  "+strings.ReplaceAll(v.Prompt, "\n", "\n  "))
	}
	return text(strings.Join(lines, "\n")), out, nil
}

// UpdateInstructionsIn is the input of update_instructions.
type UpdateInstructionsIn struct {
	InstructionsIn
	Prompt string `json:"prompt" jsonschema:"the full new instructions"`
	Note   string `json:"note,omitempty" jsonschema:"why they changed, for instance the feedback that prompted it"`
}

func (t *tools) updateInstructions(ctx context.Context, req *mcp.CallToolRequest, in UpdateInstructionsIn) (*mcp.CallToolResult, VersionOut, error) {
	ins, err := t.openInstructions(req, in.InstructionsIn)
	if err != nil {
		return nil, VersionOut{}, toolError(err)
	}
	v, err := ins.Update(ctx, in.Prompt, in.Note)
	if err != nil {
		return nil, VersionOut{}, toolError(err)
	}
	return text(fmt.Sprintf("Wrote version %d of instructions %q.", v.Number, ins.Name)), versionOut(v), nil
}

// RestoreInstructionsIn is the input of restore_instructions.
type RestoreInstructionsIn struct {
	InstructionsIn
	Version int    `json:"version" jsonschema:"the version to make current again"`
	Note    string `json:"note,omitempty" jsonschema:"why (default: restored version N)"`
}

func (t *tools) restoreInstructions(ctx context.Context, req *mcp.CallToolRequest, in RestoreInstructionsIn) (*mcp.CallToolResult, VersionOut, error) {
	ins, err := t.openInstructions(req, in.InstructionsIn)
	if err != nil {
		return nil, VersionOut{}, toolError(err)
	}
	v, err := ins.Restore(ctx, in.Version, in.Note)
	if err != nil {
		return nil, VersionOut{}, toolError(err)
	}
	return text(fmt.Sprintf("Restored version %d of instructions %q as version %d.", in.Version, ins.Name, v.Number)), versionOut(v), nil
}
