package locomo

import (
	"fmt"

	"github.com/kgmem/kgmem"
)

// NamespacePrefix is the parent of every benchmark namespace.
const NamespacePrefix = "bench/locomo"

// Namespace is the namespace a conversation is ingested into: "bench/locomo/<id>".
func Namespace(conversationID string) (kgmem.Namespace, error) {
	ns, err := kgmem.ParseNamespace(NamespacePrefix + "/" + conversationID)
	if err != nil {
		return "", fmt.Errorf("conversation %q: %w", conversationID, err)
	}
	return ns, nil
}

// ScoredCategories are the question categories that are scored (5, adversarial,
// has no evidence to retrieve and is left out, as usual for LoCoMo).
var ScoredCategories = [...]int{1, 2, 3, 4}

// Case is one scored question: a question of categories 1–4 with at least
// one valid evidence turn.
type Case struct {
	Conversation string
	// Question is the index in the conversation's qa list.
	Question int
	Category int
	Text     string
	// Evidence are the turn ids (dia_ids) that support the answer.
	Evidence []string
}

// DataStats counts what Cases kept and left out.
type DataStats struct {
	Conversations int `json:"conversations"`
	Sessions      int `json:"sessions"`
	Turns         int `json:"turns"`
	// Questions counts every question of categories 1–4.
	Questions int `json:"questions"`
	// Scored counts the questions with at least one valid evidence id.
	Scored int `json:"scored"`
	// NoEvidence counts questions left out because no evidence id was valid
	// (an empty list, or only malformed or unknown ids).
	NoEvidence int `json:"no_evidence"`
	// MalformedIDs lists evidence entries that are not one turn id, as "conv#q: entry".
	MalformedIDs []string `json:"malformed_ids"`
	// UnknownIDs lists well-formed evidence ids naming no turn, as "conv#q: id".
	UnknownIDs []string `json:"unknown_ids"`
}

// Cases returns the scored questions of convs, in file and question order,
// and what was left out. See CleanEvidence for the evidence rules.
func Cases(convs []Conversation) ([]Case, DataStats) {
	var (
		cases []Case
		st    DataStats
	)
	scored := map[int]bool{}
	for _, c := range ScoredCategories {
		scored[c] = true
	}
	for _, conv := range convs {
		st.Conversations++
		st.Sessions += len(conv.Sessions)
		turns := map[string]bool{}
		for _, t := range conv.Turns() {
			turns[t.DiaID] = true
			st.Turns++
		}
		for _, q := range conv.Questions {
			if !scored[q.Category] {
				continue
			}
			st.Questions++
			ev := CleanEvidence(q.Evidence, turns)
			for _, m := range ev.Malformed {
				st.MalformedIDs = append(st.MalformedIDs, fmt.Sprintf("%s#%d: %q", conv.ID, q.Index, m))
			}
			for _, u := range ev.Unknown {
				st.UnknownIDs = append(st.UnknownIDs, fmt.Sprintf("%s#%d: %s", conv.ID, q.Index, u))
			}
			if len(ev.IDs) == 0 {
				st.NoEvidence++
				continue
			}
			st.Scored++
			cases = append(cases, Case{Conversation: conv.ID, Question: q.Index, Category: q.Category, Text: q.Question, Evidence: ev.IDs})
		}
	}
	return cases, st
}
