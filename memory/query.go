package memory

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// queryWords splits a query into lower-cased words: maximal runs of letters
// and digits, with a possessive or contraction ("Caroline's", "didn't")
// reduced to its base word.
func queryWords(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) && r != '\'' && r != '’'
	})
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		f = strings.ReplaceAll(f, "’", "'")
		if i := strings.IndexByte(f, '\''); i >= 0 {
			f = f[:i]
		}
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// isQueryStopWord reports words that say what kind of answer a question
// wants but not what it is about: the Snowball English stop list (pronouns,
// auxiliaries, articles, prepositions, question words) plus a few
// conversational verbs. They match a large share of every conversation, so
// they only add noise to a ranking.
func isQueryStopWord(w string) bool {
	if english.IsStopWord(w) {
		return true
	}
	switch w {
	case "also", "can", "will", "may", "might", "must", "shall", "would", "could", "ever", "kind", "kinds",
		"thing", "things", "something", "anything", "s", "t", "d", "ll", "m", "re", "ve":
		return true
	}
	return false
}

// keywords returns the query's distinct content words in order: its words
// minus stop words. A query of stop words only keeps its words, since they
// are all it has.
func keywords(text string) []string {
	ws := queryWords(text)
	seen := map[string]bool{}
	var out []string
	for _, w := range ws {
		if isQueryStopWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	if len(out) == 0 {
		return ws
	}
	return out
}

// wordSet is the set of the query's words.
func wordSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range queryWords(text) {
		set[w] = true
	}
	return set
}

// speakerNamed reports whether the query (its word set) names the speaker:
// one of the words of the speaker's name, stop words aside, is a query word.
func speakerNamed(name string, query map[string]bool) bool {
	for _, w := range queryWords(name) {
		if query[w] && !isQueryStopWord(w) {
			return true
		}
	}
	return false
}
