// Package mcpserver exposes kgmem to agents as an MCP server (Model Context
// Protocol, on the official Go SDK): tools to add memories and facts, search,
// look an entity up with its history, forget, pin and confirm, and keep the
// agent's own instructions, versioned (package procedural).
//
// The tools call kgmem's REST API through the public client (package
// client), never the engine directly: in process (cmd/server mcp, and POST
// /mcp on a running server, through api.Server.InProcess) or over the
// network (cmd/server mcp --url). So a tool checks its arguments, keys and
// namespaces exactly as the API does, and a bad argument comes back as a
// tool result with isError and the API's own message, field path included.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/client"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure the MCP server.
type Options struct {
	// Namespace, when set, is the namespace every tool works in, and the
	// tools take no namespace argument. Empty: each call names its
	// namespace, which the caller's key must cover.
	Namespace kgmem.Namespace
	// Client returns the API client for one tool call. header is the HTTP
	// header of the MCP request (streamable HTTP; nil over stdio), from which
	// the caller's key is forwarded.
	Client func(header http.Header) (*client.Client, error)
	// Extract is the default of add_memories's "extract": true when the server
	// has an LLM configured.
	Extract bool
	// Version is reported to hosts in the server's implementation info.
	Version string
}

// New returns the MCP server with kgmem's tools. Serve it over stdio with
// Server.Run(ctx, &mcp.StdioTransport{}) or over HTTP with Handler.
func New(opts Options) (*mcp.Server, error) {
	if opts.Client == nil {
		return nil, errors.New("mcpserver: Options.Client is required")
	}
	if opts.Namespace != "" {
		if _, err := kgmem.ParseNamespace(string(opts.Namespace)); err != nil {
			return nil, fmt.Errorf("mcpserver: %w", err)
		}
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "kgmem", Title: "kgmem memory", Version: version}, &mcp.ServerOptions{
		Instructions: instructions(opts.Namespace),
	})
	t := &tools{opts: opts}
	for _, add := range []func(*mcp.Server, *tools) error{
		addTool(toolAddMemories, (*tools).addMemories),
		addTool(toolSearchMemory, (*tools).searchMemory),
		addTool(toolAddFacts, (*tools).addFacts),
		addTool(toolGetEntity, (*tools).getEntity),
		addTool(toolListEntities, (*tools).listEntities),
		addTool(toolDeleteFact, (*tools).deleteFact),
		addTool(toolPinMemory, (*tools).pinMemory),
		addTool(toolUnpinMemory, (*tools).unpinMemory),
		addTool(toolConfirmMemory, (*tools).confirmMemory),
		addTool(toolGetInstructions, (*tools).getInstructions),
		addTool(toolListInstructionVersions, (*tools).listInstructionVersions),
		addTool(toolUpdateInstructions, (*tools).updateInstructions),
		addTool(toolRestoreInstructions, (*tools).restoreInstructions),
	} {
		if err := add(s, t); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Handler serves s over MCP's streamable HTTP transport, stateless and with
// JSON answers: every MCP message is one HTTP request and answer, so the
// REST API's middleware (keys, rate limit, body limit, request timeout)
// applies to it unchanged. So does the API's Host and Origin check (DNS
// rebinding and cross-origin protection, api.Options.AllowedHosts and
// AllowedOrigins), which replaces the SDK's own loopback Host check: one rule
// for /mcp and the REST routes, configured hosts included.
func Handler(s *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               true,
		DisableLocalhostProtection: true,
	})
}

// plainTypes rewrites, throughout s, the union types jsonschema.For infers
// for slices, maps and pointers (["null", "array"]) as the plain type: an
// argument is omitted rather than null. Hosts and the MCP Inspector flag
// union types as unportable.
func plainTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		s.Type = s.Types[0]
		if s.Type == "null" {
			s.Type = s.Types[1]
		}
		s.Types = nil
	}
	for _, p := range s.Properties {
		plainTypes(p)
	}
	plainTypes(s.Items)
	plainTypes(s.AdditionalProperties)
}

// prop returns the schema of the property at path, "[]" stepping into an
// array's items; it panics on a path the schema lacks (a programming error
// caught by every test that builds the server).
func prop(s *jsonschema.Schema, path ...string) *jsonschema.Schema {
	for _, name := range path {
		if name == "[]" {
			s = s.Items
		} else {
			s = s.Properties[name]
		}
		if s == nil {
			panic(fmt.Sprintf("mcpserver: no property %q in the input schema", strings.Join(path, ".")))
		}
	}
	return s
}

// lengths declares a string property's bounds in UTF-8 characters.
func lengths(s *jsonschema.Schema, lo, hi int) {
	s.MinLength, s.MaxLength = ptr(lo), ptr(hi)
}

// count declares an array property's bounds in items.
func count(s *jsonschema.Schema, lo, hi int) {
	s.MinItems, s.MaxItems = ptr(lo), ptr(hi)
}

// within declares an integer property's range.
func within(s *jsonschema.Schema, lo, hi float64) {
	s.Minimum, s.Maximum = &lo, &hi
}

func ptr[T any](v T) *T { return &v }

// instructions is what the server tells the host about itself.
func instructions(ns kgmem.Namespace) string {
	s := "kgmem is long-term memory: a knowledge graph of facts (subject, predicate, object, with when they were true) " +
		"drawn from conversations, plus the messages themselves. Call search_memory before answering anything that " +
		"depends on what the user told you earlier; call add_memories with what the user says that is worth remembering; " +
		"call add_facts when you already know a fact as a triple; read your standing instructions with get_instructions " +
		"and rewrite them with update_instructions when feedback shows a rule is missing or wrong."
	if ns == "" {
		return s + " Every tool takes a namespace (for instance acme/users/alice): use the same one for one user."
	}
	return s + fmt.Sprintf(" Every tool works in the namespace %q.", ns)
}

// toolSpec names and describes a tool for the model.
type toolSpec struct {
	name, title, description string
	readOnly, destructive    bool
	// limits declares in the input schema the bounds the API enforces
	// (lengths, counts, ranges, enums), so a host can check arguments
	// before it calls; nil: none beyond the inferred types.
	limits func(in *jsonschema.Schema)
}

// addTool returns a registration of a typed tool: its input schema is
// inferred from In, without the namespace argument when the server has a
// fixed namespace.
func addTool[In, Out any](spec toolSpec, h func(*tools, context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, Out, error)) func(*mcp.Server, *tools) error {
	return func(s *mcp.Server, t *tools) error {
		schema, err := jsonschema.For[In](nil)
		if err != nil {
			return fmt.Errorf("mcpserver: tool %s: %w", spec.name, err)
		}
		out, err := jsonschema.For[Out](nil)
		if err != nil {
			return fmt.Errorf("mcpserver: tool %s: %w", spec.name, err)
		}
		if t.opts.Namespace != "" {
			delete(schema.Properties, "namespace")
		} else if ns, ok := schema.Properties["namespace"]; ok {
			schema.Required = append(schema.Required, "namespace")
			ns.MinLength, ns.MaxLength = ptr(1), ptr(kgmem.MaxNamespaceDepth*(kgmem.MaxNamespaceSegment+1)-1)
		}
		if spec.limits != nil {
			spec.limits(schema)
		}
		plainTypes(schema)
		plainTypes(out)
		destructive, openWorld := spec.destructive, false
		mcp.AddTool(s, &mcp.Tool{
			Name:         spec.name,
			Title:        spec.title,
			Description:  spec.description,
			InputSchema:  schema,
			OutputSchema: out,
			// Every tool reads or writes this server's memory only: a closed
			// world (the hint defaults to open, an outside-world effect).
			Annotations: &mcp.ToolAnnotations{Title: spec.title, ReadOnlyHint: spec.readOnly, DestructiveHint: &destructive, OpenWorldHint: &openWorld},
		}, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
			return h(t, ctx, req, in)
		})
		return nil
	}
}
