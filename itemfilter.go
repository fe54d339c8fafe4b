package kgmem

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ItemFilter selects items by the members of their values, as LangGraph's
// store filters do: each member of the filter names a top-level member of
// the value, and all of them must match. A condition is either a value,
// matched by JSON equality (objects member by member, arrays element by
// element), or an object of operators: $eq, $ne, $gt, $gte, $lt, $lte
// (the last four compare numbers; a value that is not a number never
// matches them).
type ItemFilter struct {
	conds []itemCond
}

// itemCond is the condition on one member of the value.
type itemCond struct {
	member string
	// ops holds the operators of an operator object; eq the value otherwise.
	ops map[string]any
	eq  any
}

// itemOperators are the operators a filter accepts.
var itemOperators = []string{"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"}

// ParseItemFilter reads a filter object (nil or empty: matches every item).
// A filter that is not an object is an error wrapping ErrInvalid; an
// unknown operator or a comparison with a value that is not a number one
// wrapping ErrUnprocessable, naming the field ("filter.score.$gt").
func ParseItemFilter(raw json.RawMessage) (ItemFilter, error) {
	var f ItemFilter
	if len(raw) == 0 || string(raw) == "null" {
		return f, nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return f, Invalidf("filter", "is not valid JSON: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return f, Invalidf("filter", "must be a JSON object")
	}
	for _, member := range slices.Sorted(maps.Keys(obj)) {
		c := itemCond{member: member}
		cond := obj[member]
		if ops, ok := cond.(map[string]any); ok && hasOperator(ops) {
			for op, arg := range ops {
				field := "filter." + member + "." + op
				if !slices.Contains(itemOperators, op) {
					return f, Unprocessablef(field, "unknown operator; use one of %s", strings.Join(itemOperators, ", "))
				}
				if op != "$eq" && op != "$ne" {
					if _, ok := number(arg); !ok {
						return f, Unprocessablef(field, "compares numbers; got %s", describeJSON(arg))
					}
				}
			}
			c.ops = ops
		} else {
			c.eq = cond
		}
		f.conds = append(f.conds, c)
	}
	return f, nil
}

// hasOperator reports whether an object is an operator object (a member
// starting with '$').
func hasOperator(obj map[string]any) bool {
	for k := range obj {
		if strings.HasPrefix(k, "$") {
			return true
		}
	}
	return false
}

// Empty reports whether the filter matches every item.
func (f ItemFilter) Empty() bool { return len(f.conds) == 0 }

// Match reports whether the item value satisfies every condition.
func (f ItemFilter) Match(value json.RawMessage) bool {
	if f.Empty() {
		return true
	}
	v, err := decodeJSON(value)
	if err != nil {
		return false
	}
	obj, _ := v.(map[string]any)
	for _, c := range f.conds {
		got, present := obj[c.member]
		if !present {
			got = nil
		}
		if c.ops == nil {
			if !jsonEqual(got, c.eq) {
				return false
			}
			continue
		}
		for op, arg := range c.ops {
			if !applyOperator(got, op, arg) {
				return false
			}
		}
	}
	return true
}

// applyOperator evaluates one operator against the value's member.
func applyOperator(got any, op string, arg any) bool {
	switch op {
	case "$eq":
		return jsonEqual(got, arg)
	case "$ne":
		return !jsonEqual(got, arg)
	}
	a, ok1 := number(got)
	b, ok2 := number(arg)
	if !ok1 || !ok2 {
		return false
	}
	switch op {
	case "$gt":
		return a > b
	case "$gte":
		return a >= b
	case "$lt":
		return a < b
	case "$lte":
		return a <= b
	}
	return false
}

// number reads a JSON number as a float64.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// jsonEqual compares decoded JSON values: numbers by value, objects by
// the filter's members only (as LangGraph does: {"a": 1} matches
// {"a": 1, "b": 2}), arrays element by element.
func jsonEqual(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			if !jsonEqual(g[k], wv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !jsonEqual(g[i], w[i]) {
				return false
			}
		}
		return true
	case json.Number:
		a, ok1 := number(got)
		b, ok2 := number(w)
		return ok1 && ok2 && a == b
	default:
		return got == want
	}
}

// describeJSON names a decoded JSON value's type for error messages.
func describeJSON(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
