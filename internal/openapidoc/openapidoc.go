// Package openapidoc reads the operations of an OpenAPI document, for the
// tests that hold the clients, the MCP tools and the web explorer to the
// names of api/openapi.json.
package openapidoc

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// Operation is one operation of the document.
type Operation struct {
	// Method is the HTTP method, upper case; Path the path template.
	Method, Path string
	// ID is the operationId.
	ID string
}

// methods are the members of a path item that are operations.
var methods = map[string]string{"get": "GET", "put": "PUT", "post": "POST", "delete": "DELETE", "patch": "PATCH", "head": "HEAD", "options": "OPTIONS"}

// Operations reads the operations of the OpenAPI document at path, ordered
// by path and method.
func Operations(path string) ([]Operation, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("openapidoc: %w", err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("openapidoc: %s: %w", path, err)
	}
	var out []Operation
	for p, item := range doc.Paths {
		for member, rawOp := range item {
			method, ok := methods[member]
			if !ok {
				continue
			}
			var op struct {
				ID string `json:"operationId"`
			}
			if err := json.Unmarshal(rawOp, &op); err != nil {
				return nil, fmt.Errorf("openapidoc: %s %s: %w", method, p, err)
			}
			out = append(out, Operation{Method: method, Path: p, ID: op.ID})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out, nil
}
