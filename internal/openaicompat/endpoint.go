// Package openaicompat reaches an OpenAI-compatible endpoint (OpenAI, Azure
// OpenAI, vLLM, Ollama, LM Studio, llama.cpp server…) the same way for every
// caller: extraction (triples), embeddings (embed) and the chat reranker
// (rerank). One Endpoint describes where and how; Config builds go-openai's
// client configuration from it, with internal/retry's doer so that every
// caller's retry loop sees the answers' Retry-After.
package openaicompat

import (
	"net/http"
	"strings"

	"github.com/kgmem/kgmem/internal/retry"
	openai "github.com/sashabaranov/go-openai"
)

// Endpoint is an OpenAI-compatible API and the model called on it.
type Endpoint struct {
	// BaseURL is the API base, ending in /v1 for OpenAI-style servers
	// (empty: OpenAI's); for Azure, the resource endpoint.
	BaseURL string
	// APIKey is sent as a bearer token (Azure: the api-key header); empty
	// for a local server that needs none.
	APIKey string
	// Model is the model name; for Azure, the deployment's, used as given.
	Model string
	// Azure selects Azure OpenAI's URL scheme and authentication.
	Azure bool
	// AzureAPIVersion is Azure's api-version query parameter (the caller
	// sets its default).
	AzureAPIVersion string
	// HTTPClient sends the requests (nil: http.DefaultClient).
	HTTPClient *http.Client
}

// Config returns go-openai's client configuration for e. Azure deployments
// are named by Model exactly (go-openai's default mapping strips colons,
// and the dots of 3.5 models: "gpt-3.5-turbo" would be called as
// "gpt-35-turbo"); the HTTP client notes each answer's Retry-After for
// retry.Hint.
func (e Endpoint) Config() openai.ClientConfig {
	var oc openai.ClientConfig
	if e.Azure {
		oc = openai.DefaultAzureConfig(e.APIKey, strings.TrimRight(e.BaseURL, "/"))
		oc.APIVersion = e.AzureAPIVersion
		oc.AzureModelMapperFunc = func(model string) string { return model }
	} else {
		oc = openai.DefaultConfig(e.APIKey)
		if e.BaseURL != "" {
			oc.BaseURL = strings.TrimRight(e.BaseURL, "/")
		}
	}
	oc.HTTPClient = retry.Doer{Client: e.HTTPClient}
	return oc
}

// Client returns a go-openai client of e.
func (e Endpoint) Client() *openai.Client { return openai.NewClientWithConfig(e.Config()) }
