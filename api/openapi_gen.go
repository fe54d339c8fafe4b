package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// OpenAPIDocument builds the OpenAPI 3 document of the REST API from the
// route table (paths, parameters, statuses, access) and the wire types
// (component schemas, derived with jsonschema-go and completed by the
// per-property table of openapi_schemas.go). api/openapi.json is its
// output, written by go generate and checked by TestOpenAPIIsCurrent.
func OpenAPIDocument() ([]byte, error) {
	comps, err := componentSchemas()
	if err != nil {
		return nil, err
	}
	paths := map[string]any{}
	for _, r := range routeTable() {
		if r.Optional != nil {
			continue // not part of the REST document
		}
		op, err := operation(r, comps)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", r.Method, r.Path, err)
		}
		p := openAPIPath(r.Path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p].(map[string]any)[strings.ToLower(r.Method)] = op
	}
	doc := map[string]any{
		"openapi": "3.0.3",
		"info": map[string]any{
			"title":       "kgmem",
			"version":     "0.1.0",
			"description": documentDescription,
		},
		"servers":    []any{map[string]any{"url": "http://127.0.0.1:8080"}},
		"security":   []any{map[string]any{"apiKey": []any{}}},
		"paths":      paths,
		"components": map[string]any{"schemas": comps, "securitySchemes": map[string]any{"apiKey": map[string]any{"type": "http", "scheme": "bearer", "description": apiKeyDescription}}},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode the OpenAPI document: %w", err)
	}
	return buf.Bytes(), nil
}

const (
	documentDescription = "Knowledge-graph semantic memory for AI agents. Errors are application/problem+json. Bodies are JSON objects sent as application/json (or an application/*+json type; 415 naming Content-Type otherwise), decoded strictly: member names match exactly (case included), each member appears once, text is valid UTF-8 without lone surrogate escapes; a query parameter appears at most once. Each breach is a 400 naming the member or parameter. A server without API keys answers only to the Host names localhost, 127.0.0.0/8, [::1] and its --allowed-hosts (403 naming Host otherwise); on every server, a POST, PUT or DELETE a browser marks as cross-origin (Origin, Sec-Fetch-Site) is a 403 naming Origin unless the origin is in --allowed-origins."
	apiKeyDescription   = "An API key (\"kgm_…\", from `server keys create`) or the admin key ($KGMEM_ADMIN_KEY). A key covers namespace prefixes, segment by segment, with read or write rights; purges and /metrics need the admin key. With no key configured the server runs open on loopback only and needs no header."
	guardDescription    = "On a server without keys, a Host header that is not loopback or an allowed host (\"field\": \"Host\"); on any server, a cross-origin browser request (\"field\": \"Origin\")"
)

// openAPIPath turns echo's /v1/facts/:id into /v1/facts/{id}.
func openAPIPath(p string) string {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if name, ok := strings.CutPrefix(part, ":"); ok {
			parts[i] = "{" + name + "}"
		}
	}
	return strings.Join(parts, "/")
}

// refSchema is a reference to the component schema name.
func refSchema(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// problemResponse is an error answer with a problem+json body.
func problemResponse(description string) map[string]any {
	return map[string]any{"description": description, "content": map[string]any{problemContentType: map[string]any{"schema": refSchema("Problem")}}}
}

// operation is the OpenAPI operation of one row of the route table.
func operation(r route, comps map[string]any) (map[string]any, error) {
	op := map[string]any{"operationId": r.OperationID, "summary": r.Summary}
	if r.Description != "" {
		op["description"] = r.Description
	}
	var params []any
	for _, seg := range strings.Split(r.Path, "/") {
		name, ok := strings.CutPrefix(seg, ":")
		if !ok {
			continue
		}
		p := map[string]any{"name": name, "in": "path", "required": true, "schema": map[string]any{"type": "string", "minLength": 1}}
		if name == "namespace" {
			p["schema"] = refSchema("Namespace")
			p["description"] = "URL-encoded as one segment: acme%2Fusers%2Fu42"
		}
		params = append(params, p)
	}
	for _, q := range r.Query {
		p := map[string]any{"name": q.Name, "in": "query", "schema": q.Schema}
		if q.Required {
			p["required"] = true
		}
		if q.Description != "" {
			p["description"] = q.Description
		}
		if q.Repeated {
			p["style"], p["explode"] = "form", true
		}
		params = append(params, p)
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if r.Request != nil {
		name := r.RequestSchema
		if name == "" {
			name = componentName(r.Request)
		}
		if comps[name] == nil {
			return nil, fmt.Errorf("request type %v has no component schema", r.Request)
		}
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": refSchema(name)}}}
	}
	responses := map[string]any{}
	for _, res := range r.Responses {
		out := map[string]any{"description": res.Description}
		switch {
		case res.Body != nil:
			name := componentName(res.Body)
			if comps[name] == nil {
				return nil, fmt.Errorf("response type %v has no component schema", res.Body)
			}
			out["content"] = map[string]any{"application/json": map[string]any{"schema": refSchema(name)}}
		case res.ContentType != "":
			out["content"] = map[string]any{res.ContentType: map[string]any{}}
		}
		if res.Links != nil {
			out["links"] = res.Links
		}
		if res.Headers != nil {
			out["headers"] = res.Headers
		}
		responses[strconv.Itoa(res.Status)] = out
	}
	for status, desc := range documentedErrors(r) {
		responses[strconv.Itoa(status)] = problemResponse(desc)
	}
	for status, resp := range documentedErrorHeaders(r) {
		maps.Copy(responses[strconv.Itoa(status)].(map[string]any), resp)
	}
	op["responses"] = responses
	if r.Access.public {
		op["security"] = []any{}
	}
	return op, nil
}

// documentedErrors are the error statuses of a route: those every route of
// its kind may answer (the guard's 403; a key's 401, 403 and 429; a body's
// 400, 413 and 415; a backend's 503), then the row's own.
func documentedErrors(r route) map[int]string {
	errs := map[int]string{http.StatusForbidden: "Refused before any work. " + guardDescription}
	if !r.Access.public {
		field := "namespace"
		if r.Access.ns == nsBodyOps {
			field = "ops[i].namespace"
		}
		errs[http.StatusBadRequest] = "Invalid input (the field is named); nothing changed"
		errs[http.StatusUnauthorized] = "No API key, or a malformed, unknown or revoked one"
		errs[http.StatusForbidden] = fmt.Sprintf("The key does not cover the namespace or lacks the right (\"field\": %q). %s", field, guardDescription)
		errs[http.StatusTooManyRequests] = "The key exceeds its rate limit (--rate-limit)"
		errs[http.StatusServiceUnavailable] = "A backend is unavailable"
	}
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		errs[http.StatusRequestEntityTooLarge] = "Body too large"
		errs[http.StatusUnsupportedMediaType] = "The body is not sent as application/json or an application/*+json type (\"field\": \"Content-Type\"); nothing changed"
	}
	maps.Copy(errs, r.Errors)
	return errs
}

// documentedErrorHeaders are the headers of a route's error answers.
func documentedErrorHeaders(r route) map[int]map[string]any {
	retry := func(desc string) map[string]any {
		return map[string]any{"headers": map[string]any{"Retry-After": map[string]any{"description": desc, "schema": map[string]any{"type": "integer"}}}}
	}
	out := map[int]map[string]any{}
	if !r.Access.public {
		out[http.StatusUnauthorized] = map[string]any{"headers": map[string]any{"WWW-Authenticate": map[string]any{"description": `Bearer realm="kgmem"`, "schema": map[string]any{"type": "string"}}}}
		out[http.StatusTooManyRequests] = retry("Seconds until a request is allowed")
		out[http.StatusServiceUnavailable] = retry("Seconds to wait before retrying")
	}
	return out
}

// componentName is the name of a wire type's component schema.
func componentName(t reflect.Type) string {
	for _, c := range components() {
		if c.Type == t && !c.Variant {
			return c.Name
		}
	}
	return t.Name()
}

// componentSchemas derives the schema of every component: jsonschema-go
// infers it from the Go type, with the other components as references, then
// it is turned into OpenAPI 3.0's dialect and completed by the
// per-property table (constraints and descriptions Go types cannot carry).
func componentSchemas() (map[string]any, error) {
	all := components()
	refs := map[reflect.Type]*jsonschema.Schema{}
	for _, c := range all {
		if c.Type != nil && !c.Variant {
			refs[c.Type] = &jsonschema.Schema{Ref: "#/components/schemas/" + c.Name}
		}
	}
	maps.Copy(refs, scalarSchemas())
	props := propertyOverrides()
	out := map[string]any{}
	for _, c := range all {
		if c.Derive != nil {
			continue // below, from the others
		}
		s := map[string]any{}
		if c.Schema != nil {
			s = c.Schema()
		} else if err := infer(c, refs, s); err != nil {
			return nil, fmt.Errorf("component %s: %w", c.Name, err)
		}
		if err := complete(c, all, s, props); err != nil {
			return nil, err
		}
		out[c.Name] = s
	}
	for _, c := range all {
		if c.Derive != nil {
			s, err := c.Derive(out)
			if err != nil {
				return nil, fmt.Errorf("component %s: %w", c.Name, err)
			}
			out[c.Name] = s
		}
	}
	for key := range props {
		comp, _, _ := strings.Cut(key, ".")
		if out[comp] == nil {
			return nil, fmt.Errorf("override %s names no component", key)
		}
	}
	return out, nil
}

// infer fills s with the schema jsonschema-go infers for c's Go type, in
// OpenAPI 3.0's dialect: the other components by reference, the types c
// embeds inlined (their members are c's on the wire).
func infer(c schemaComponent, refs map[reflect.Type]*jsonschema.Schema, s map[string]any) error {
	opts := &jsonschema.ForOptions{TypeSchemas: maps.Clone(refs)}
	delete(opts.TypeSchemas, c.Type)
	for _, e := range embedded(c.Type) {
		delete(opts.TypeSchemas, e)
	}
	js, err := jsonschema.ForType(c.Type, opts)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(js)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	toOpenAPI30(s, c.Request)
	return nil
}

// complete applies c's own settings (omitted and required members, request
// rules, description) and the per-property table to its schema s. The
// table's entries of c, of the types c embeds and of the other components
// of c's type (RefsRequest's are PinRequest's) apply.
func complete(c schemaComponent, all []schemaComponent, s map[string]any, props map[string]string) error {
	properties, _ := s["properties"].(map[string]any)
	for _, name := range c.Omit {
		delete(properties, name)
		s["required"] = without(s["required"], name)
	}
	if c.Required != nil {
		s["required"] = c.Required
		if len(c.Required) == 0 {
			delete(s, "required")
		}
	}
	if c.Request {
		namespaceMembers(properties)
		nullableOptionals(s)
	}
	if c.Description != "" {
		s["description"] = c.Description
	}
	owners := []string{c.Name}
	for _, e := range embedded(c.Type) {
		owners = append(owners, componentName(e))
	}
	for _, o := range all {
		if o.Type != nil && o.Type == c.Type {
			owners = append(owners, o.Name)
		}
	}
	for key, frag := range props {
		comp, prop, _ := strings.Cut(key, ".")
		if !slices.Contains(owners, comp) || c.Type == nil && comp != c.Name {
			continue
		}
		if properties[prop] == nil {
			if comp != c.Name {
				continue // a member the other component has and this one omits
			}
			return fmt.Errorf("override %s: %s has no property %q", key, c.Name, prop)
		}
		if err := mergeFragment(properties[prop].(map[string]any), frag); err != nil {
			return fmt.Errorf("override %s: %w", key, err)
		}
	}
	return nil
}

// embedded lists the struct types embedded in t, at any depth: their
// fields are t's own on the wire, so t's schema inlines them.
func embedded(t reflect.Type) []reflect.Type {
	var out []reflect.Type
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, f.Type)
			out = append(out, embedded(f.Type)...)
		}
	}
	return out
}

// toOpenAPI30 rewrites a JSON Schema 2020-12 (as jsonschema-go infers it)
// into OpenAPI 3.0's dialect, in place: "type": ["null", T] becomes T with
// "nullable", a reference with siblings an allOf, and a nullable enum lists
// null. Response schemas (strict false) accept members they do not list.
func toOpenAPI30(s map[string]any, strict bool) {
	if types, ok := s["type"].([]any); ok {
		var rest []any
		for _, t := range types {
			if t == "null" {
				s["nullable"] = true
				continue
			}
			rest = append(rest, t)
		}
		switch len(rest) {
		case 0:
			delete(s, "type")
		case 1:
			s["type"] = rest[0]
		default:
			s["type"] = rest
		}
	}
	if ref, ok := s["$ref"]; ok && len(s) > 1 {
		delete(s, "$ref")
		s["allOf"] = []any{map[string]any{"$ref": ref}}
	}
	if ap, ok := s["additionalProperties"].(bool); ok && !ap && !strict {
		delete(s, "additionalProperties")
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			if p == true { // the empty schema: any value
				p = map[string]any{}
				props[name] = p
			}
			toOpenAPI30(p.(map[string]any), strict)
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		switch sub := s[key].(type) {
		case map[string]any:
			toOpenAPI30(sub, strict)
		case bool:
			if sub && key == "items" {
				s[key] = map[string]any{}
			}
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if subs, ok := s[key].([]any); ok {
			for _, sub := range subs {
				toOpenAPI30(sub.(map[string]any), strict)
			}
		}
	}
	addNullToEnum(s)
}

// addNullToEnum lists null in the enum of a nullable schema: OpenAPI 3.0
// checks the enum after nullable.
func addNullToEnum(s map[string]any) {
	enum, ok := s["enum"].([]any)
	if ok && s["nullable"] == true && !slices.Contains(enum, any(nil)) {
		s["enum"] = append(enum, nil)
	}
}

// namespaceMembers makes a request's namespace and namespace_prefix
// members namespaces: the wire takes them as strings and the server parses
// them with kgmem.ParseNamespace.
func namespaceMembers(props map[string]any) {
	for _, name := range []string{"namespace", "namespace_prefix"} {
		if p, ok := props[name].(map[string]any); ok && p["type"] == "string" {
			delete(p, "type")
			p["$ref"] = "#/components/schemas/Namespace"
		}
	}
}

// nullableOptionals marks the optional members of a request schema
// nullable, the strict decoder taking null as absent, and the required
// ones not: a required list or object given as null is refused.
func nullableOptionals(s map[string]any) {
	props, _ := s["properties"].(map[string]any)
	required := requiredOf(s)
	for name, p := range props {
		p := p.(map[string]any)
		if slices.Contains(required, name) {
			delete(p, "nullable")
			continue
		}
		if ref, ok := p["$ref"]; ok {
			delete(p, "$ref")
			p["allOf"] = []any{map[string]any{"$ref": ref}}
		}
		p["nullable"] = true
		addNullToEnum(p)
	}
}

// requiredOf lists the required members of schema s.
func requiredOf(s map[string]any) []string {
	var out []string
	switch r := s["required"].(type) {
	case []any:
		for _, v := range r {
			if name, ok := v.(string); ok {
				out = append(out, name)
			}
		}
	case []string:
		out = r
	}
	return out
}

// mergeFragment sets the members of the JSON object frag on s; a member
// whose value is null is removed.
func mergeFragment(s map[string]any, frag string) error {
	var f map[string]any
	if err := json.Unmarshal([]byte(frag), &f); err != nil {
		return fmt.Errorf("fragment %s: %w", frag, err)
	}
	for k, v := range f {
		if v == nil {
			delete(s, k)
			continue
		}
		s[k] = v
	}
	if _, ok := f["$ref"]; ok {
		delete(s, "type")
	}
	if ref, ok := s["$ref"]; ok && len(s) > 1 {
		// OpenAPI 3.0 ignores the siblings of a reference.
		delete(s, "$ref")
		s["allOf"] = []any{map[string]any{"$ref": ref}}
	}
	addNullToEnum(s)
	return nil
}

// without returns the JSON array list without name.
func without(list any, name string) any {
	l, _ := list.([]any)
	return slices.DeleteFunc(slices.Clone(l), func(v any) bool { return v == name })
}
