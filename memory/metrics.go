package memory

import (
	"github.com/kgmem/kgmem"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the engine's Prometheus counters.
type metrics struct {
	messages         prometheus.Counter
	factChanges      *prometheus.CounterVec
	llmCalls         prometheus.Counter
	promptTokens     prometheus.Counter
	completionTokens prometheus.Counter
	searches         prometheus.Counter
	degraded         prometheus.Counter
}

// newMetrics registers the engine's counters on reg (nil: counted, not exported).
func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		messages:         prometheus.NewCounter(prometheus.CounterOpts{Name: "kgmem_ingested_messages_total", Help: "Messages stored as new episodes."}),
		factChanges:      prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kgmem_fact_changes_total", Help: "Fact changes by operation (added, duplicate, updated, invalidated, skipped)."}, []string{"op"}),
		llmCalls:         prometheus.NewCounter(prometheus.CounterOpts{Name: "kgmem_llm_calls_total", Help: "LLM chat calls made for extraction, resolution and decisions."}),
		promptTokens:     prometheus.NewCounter(prometheus.CounterOpts{Name: "kgmem_llm_prompt_tokens_total", Help: "Prompt tokens the LLM reported."}),
		completionTokens: prometheus.NewCounter(prometheus.CounterOpts{Name: "kgmem_llm_completion_tokens_total", Help: "Completion tokens the LLM reported."}),
		searches:         prometheus.NewCounter(prometheus.CounterOpts{Name: "kgmem_searches_total", Help: "Searches answered."}),
		degraded:         prometheus.NewCounter(prometheus.CounterOpts{Name: "kgmem_searches_degraded_total", Help: "Searches answered with a retriever down."}),
	}
	if reg != nil {
		reg.MustRegister(m.messages, m.factChanges, m.llmCalls, m.promptTokens, m.completionTokens, m.searches, m.degraded)
	}
	return m
}

// ingested counts one ingest's new episodes, fact changes and LLM usage.
func (m *metrics) ingested(newEpisodes int, changes []kgmem.FactChange, usage kgmem.LLMUsage) {
	m.messages.Add(float64(newEpisodes))
	for _, c := range changes {
		m.factChanges.WithLabelValues(string(c.Op)).Inc()
	}
	m.llmCalls.Add(float64(usage.Calls))
	m.promptTokens.Add(float64(usage.PromptTokens))
	m.completionTokens.Add(float64(usage.CompletionTokens))
}
