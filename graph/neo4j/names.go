package neo4j

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// maxIdentLen bounds labels and relationship types.
const maxIdentLen = 64

// Labels and relationship types of the store's own records, which mapped
// entity types and predicates must never collide with.
const (
	labelEntity   = "Entity"
	labelEpisode  = "Episode"
	labelFactText = "FactText"
	// labelItem is the node of an item (kgmem.Item); "Item" alone would
	// collide with the label of an entity of type "item".
	labelItem     = "KgmemItem"
	labelSettings = "KgmemSettings"
	labelSchema   = "KgmemSchema"
	// labelGraphVersion is the node holding a namespace's graph version (version.go).
	labelGraphVersion = "KgmemGraphVersion"
	relMentions       = "MENTIONS"
)

// fallbackRelType is the relationship type of a predicate without any ASCII
// letter or digit (for example one written only in CJK characters).
const fallbackRelType = "RELATED_TO"

// RelType maps a predicate to the relationship type that carries it, in
// UPPER_SNAKE_CASE matching ^[A-Z][A-Z0-9_]{0,63}$: accents are stripped
// ("située_à" → "SITUEE_A"), every run of other characters becomes one "_",
// a leading digit gets an "R_" prefix, and text without letters or digits
// maps to RELATED_TO. The store's own MENTIONS type is never returned. The
// exact predicate is kept in the relationship's predicate property; the type
// only makes the graph readable and is never used to tell facts apart.
func RelType(predicate string) string {
	s := asciiWords(predicate, strings.ToUpper)
	if s == "" {
		return fallbackRelType
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "R_" + s
	}
	s = truncate(s)
	if s == relMentions {
		s = "FACT_" + s
	}
	return s
}

// fallbackLabel is the label of an entity type without letters or digits.
const fallbackLabel = "Other"

// Label maps an entity type to the node label carried next to :Entity, in
// PascalCase matching ^[A-Z][A-Za-z0-9_]{0,63}$: "Person" stays, "music band"
// becomes "MusicBand", accents are stripped, a leading digit gets a "T"
// prefix, and text without letters or digits maps to "Other". Types that
// would collide with the store's own labels (Entity, Episode, FactText,
// KgmemItem, KgmemKey, KgmemLock, KgmemSettings, KgmemSchema, KgmemGraphVersion) get a "Type" suffix. The
// exact type is kept in the node's type property.
func Label(entityType string) string {
	var b strings.Builder
	for _, w := range strings.Split(asciiWords(entityType, nil), "_") {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]))
		b.WriteString(w[1:])
	}
	s := b.String()
	if s == "" {
		return fallbackLabel
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "T" + s
	}
	s = truncate(s)
	switch s {
	case labelEntity, labelEpisode, labelFactText, labelItem, labelKey, labelLock, labelSettings, labelSchema, labelGraphVersion:
		s += "Type"
	}
	return s
}

// asciiWords folds s to ASCII letters and digits (accents stripped, case
// mapped by fold when not nil), joining the words with single underscores.
func asciiWords(s string, fold func(string) string) string {
	s = norm.NFKD.String(s)
	var b strings.Builder
	pendingSep := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
			// A combining mark left by NFKD: drop it, keep the base letter.
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if pendingSep && b.Len() > 0 {
				b.WriteByte('_')
			}
			pendingSep = false
			b.WriteRune(r)
		default:
			pendingSep = true
		}
	}
	out := b.String()
	if fold != nil {
		out = fold(out)
	}
	return out
}

// truncate cuts s to maxIdentLen bytes (s is ASCII) without a trailing "_".
func truncate(s string) string {
	if len(s) > maxIdentLen {
		s = strings.TrimRight(s[:maxIdentLen], "_")
	}
	return s
}
