package llmtest

import (
	"fmt"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Reply is one scripted answer of the fake chat endpoint.
//
// With Status zero (or 200) the server answers a normal chat completion whose
// message holds Content and ToolCalls. With any other Status it answers an
// OpenAI-style error body ({"error":{"message":…}}) with that HTTP status and,
// when RetryAfter is set, a Retry-After header in whole seconds.
type Reply struct {
	// Content is the assistant message text.
	Content string
	// ToolCalls are returned as the assistant's tool calls (finish_reason "tool_calls").
	ToolCalls []openai.ToolCall
	// Status is the HTTP status to answer with; 0 means 200.
	Status int
	// ErrorMessage is the error message for a non-200 Status (a default is derived
	// from the status when empty).
	ErrorMessage string
	// ErrorType is the OpenAI error type ("invalid_request_error", "rate_limit_error", …).
	ErrorType string
	// ErrorParam is the request parameter the error is about ("response_format").
	ErrorParam string
	// RetryAfter sets the Retry-After header (rounded up to whole seconds, at least 1).
	RetryAfter time.Duration
	// Delay holds the answer back this long (or until the client gives up).
	Delay time.Duration
	// TruncateAt, when positive, cuts Content to its first TruncateAt bytes and
	// reports finish_reason "length", like a model that ran out of output tokens.
	TruncateAt int
	// Usage, when set, is reported verbatim; otherwise tokens are estimated as
	// about one token per four bytes of prompt and completion text.
	Usage *openai.Usage
	// Model overrides the model name echoed in the response.
	Model string
}

// Text is a plain successful reply with content s.
func Text(s string) Reply { return Reply{Content: s} }

// Status is an error reply with the given HTTP status.
func Status(code int) Reply { return Reply{Status: code} }

// RateLimited is a 429 reply asking the client to wait retryAfter.
func RateLimited(retryAfter time.Duration) Reply {
	return Reply{Status: 429, ErrorType: "rate_limit_error", RetryAfter: retryAfter,
		ErrorMessage: "Rate limit reached for requests. Please try again later."}
}

// Truncated is a successful reply whose content is cut after n bytes
// (finish_reason "length").
func Truncated(s string, n int) Reply { return Reply{Content: s, TruncateAt: n} }

// ToolCall is a successful reply carrying one function tool call with the given
// name and JSON arguments.
func ToolCall(name, arguments string) Reply {
	return Reply{ToolCalls: []openai.ToolCall{{
		ID:       "call_" + name,
		Type:     openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: name, Arguments: arguments},
	}}}
}

// Responder computes the reply to one chat completion request. A returned error
// becomes a 500 answer carrying the error text.
type Responder func(req openai.ChatCompletionRequest) (Reply, error)

// Rule scripts a reply for requests whose last user message contains Contains.
type Rule struct {
	// Contains is matched case-sensitively against the last user message; empty matches any.
	Contains string
	// Replies are served in order on successive matches; the last one repeats.
	Replies []Reply
}

// On is a shorthand for a Rule.
func On(contains string, replies ...Reply) Rule { return Rule{Contains: contains, Replies: replies} }

// Script returns a Responder that answers with the first rule whose Contains
// occurs in the last user message; each rule serves its replies in order and then
// repeats the last. A request no rule matches gets an error (HTTP 500) naming
// the message, so a missing script line fails loudly. Safe for concurrent use.
func Script(rules ...Rule) Responder {
	var mu sync.Mutex
	served := make([]int, len(rules))
	return func(req openai.ChatCompletionRequest) (Reply, error) {
		last := LastUserMessage(req)
		mu.Lock()
		defer mu.Unlock()
		for i, r := range rules {
			if !strings.Contains(last, r.Contains) || len(r.Replies) == 0 {
				continue
			}
			k := min(served[i], len(r.Replies)-1)
			served[i]++
			return r.Replies[k], nil
		}
		return Reply{}, fmt.Errorf("llmtest: no scripted reply for user message %.200q", last)
	}
}

// Sequence returns a Responder serving replies in order, repeating the last one.
func Sequence(replies ...Reply) Responder {
	return Script(Rule{Replies: replies})
}

// LastUserMessage returns the text of the last message with role "user" in req
// (multi-part text contents are joined with newlines).
func LastUserMessage(req openai.ChatCompletionRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != openai.ChatMessageRoleUser {
			continue
		}
		if m.Content != "" || len(m.MultiContent) == 0 {
			return m.Content
		}
		parts := make([]string, 0, len(m.MultiContent))
		for _, p := range m.MultiContent {
			if p.Type == openai.ChatMessagePartTypeText {
				parts = append(parts, p.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
