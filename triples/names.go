package triples

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"golang.org/x/text/unicode/norm"
)

// MaxNameLen is the longest entity name or alias accepted, in characters.
const MaxNameLen = 200

// annotation matches parenthesised or bracketed asides: "Bob Smith (he/him)", "Ann [PM]".
var annotation = regexp.MustCompile(`\s*[\(\[\{][^\)\]\}]*[\)\]\}]`)

// CleanEntityName returns the display form of an entity name: Unicode NFKC,
// invisible format characters removed (zero-width spaces, bidi controls, soft
// hyphens; a zero-width joiner or non-joiner is kept between two letters, where
// scripts such as Persian or Devanagari need it), parenthesised or bracketed annotations removed ("Bob Smith (he)" → "Bob Smith"),
// surrounding quotes, punctuation and spaces trimmed, inner whitespace collapsed.
// Case is kept; kgmem.NormalizeName of the result is the matching key.
func CleanEntityName(s string) string {
	s = cleanFormatChars(norm.NFKC.String(s))
	// Most names have no bracket, and the expression needs one to match.
	if strings.ContainsAny(s, "([{") {
		if stripped := annotation.ReplaceAllString(s, ""); strings.TrimSpace(stripped) != "" {
			s = stripped
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(nameTrim, r)
	})
}

// cleanFormatChars removes format characters (Unicode Cf) from a display
// name, keeping ZWJ and ZWNJ between two letters or marks.
func cleanFormatChars(s string) string {
	isFormat := func(r rune) bool { return unicode.Is(unicode.Cf, r) }
	if !strings.ContainsFunc(s, isFormat) { // most names, as kgmem.RemoveFormatChars
		return s
	}
	rs := []rune(s)
	out := rs[:0:0]
	letter := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsMark(r) }
	for i, r := range rs {
		if !isFormat(r) {
			out = append(out, r)
			continue
		}
		joiner := r == '\u200c' || r == '\u200d'
		if joiner && len(out) > 0 && letter(out[len(out)-1]) && i+1 < len(rs) && letter(rs[i+1]) {
			out = append(out, r)
		}
	}
	return string(out)
}

// nameTrim are the characters trimmed from both ends of a name: quotes and
// sentence punctuation (symbols such as "+" in "C++" are kept).
const nameTrim = "\"'`“”‘’«»„,;:.!?*_-"

// validateName cleans s and checks it is usable as an entity name; field names
// the offending input in the error.
func validateName(field, s string) (string, error) {
	c := CleanEntityName(s)
	switch {
	case kgmem.NormalizeName(c) == "":
		return "", kgmem.Invalidf(field, "is empty")
	case utf8.RuneCountInString(c) > MaxNameLen:
		return "", kgmem.Invalidf(field, "is %d characters, at most %d allowed", utf8.RuneCountInString(c), MaxNameLen)
	}
	return c, nil
}

// firstPersonPronouns are what the extractor must resolve to the speaker.
var firstPersonPronouns = map[string]bool{"i": true, "me": true, "my": true, "myself": true, "mine": true, "user": true, "the user": true}

// otherPronouns cannot be resolved without the conversation: triples using them are skipped.
var otherPronouns = map[string]bool{
	"he": true, "him": true, "his": true, "she": true, "her": true, "hers": true, "they": true, "them": true,
	"their": true, "it": true, "its": true, "you": true, "your": true, "we": true, "us": true, "our": true,
	"this": true, "that": true, "someone": true, "somebody": true,
}

// typeSynonyms maps lower-cased type spellings to default entity types.
var typeSynonyms = map[string]string{
	"person": kgmem.TypePerson, "people": kgmem.TypePerson, "human": kgmem.TypePerson, "user": kgmem.TypePerson,
	"individual": kgmem.TypePerson, "speaker": kgmem.TypePerson, "colleague": kgmem.TypePerson, "contact": kgmem.TypePerson,
	"organization": kgmem.TypeOrganization, "organisation": kgmem.TypeOrganization, "org": kgmem.TypeOrganization,
	"company": kgmem.TypeOrganization, "business": kgmem.TypeOrganization, "employer": kgmem.TypeOrganization,
	"institution": kgmem.TypeOrganization, "startup": kgmem.TypeOrganization, "school": kgmem.TypeOrganization,
	"university": kgmem.TypeOrganization,
	"team":       kgmem.TypeTeam, "group": kgmem.TypeTeam, "department": kgmem.TypeTeam, "squad": kgmem.TypeTeam,
	"project": kgmem.TypeProject, "initiative": kgmem.TypeProject, "program": kgmem.TypeProject, "programme": kgmem.TypeProject,
	"place": kgmem.TypePlace, "location": kgmem.TypePlace, "city": kgmem.TypePlace, "country": kgmem.TypePlace,
	"address": kgmem.TypePlace, "region": kgmem.TypePlace, "venue": kgmem.TypePlace,
	"event": kgmem.TypeEvent, "meeting": kgmem.TypeEvent, "trip": kgmem.TypeEvent, "conference": kgmem.TypeEvent,
	"object": kgmem.TypeObject, "thing": kgmem.TypeObject, "item": kgmem.TypeObject, "product": kgmem.TypeObject,
	"device": kgmem.TypeObject, "tool": kgmem.TypeObject, "food": kgmem.TypeObject, "dish": kgmem.TypeObject,
	"concept": kgmem.TypeConcept, "topic": kgmem.TypeConcept, "skill": kgmem.TypeConcept, "idea": kgmem.TypeConcept,
	"technology": kgmem.TypeConcept, "language": kgmem.TypeConcept, "subject": kgmem.TypeConcept,
	"preference": kgmem.TypePreference, "hobby": kgmem.TypePreference, "interest": kgmem.TypePreference,
	"other": kgmem.TypeOther, "unknown": kgmem.TypeOther, "misc": kgmem.TypeOther,
}

// NormalizeEntityType maps an extracted type to a known type: a type declared by
// schema (matched case-insensitively, returned as declared), a default type, or a
// common synonym of one ("company" → Organization). Anything else, including
// the empty string, is kgmem.TypeOther.
func NormalizeEntityType(t string, schema *kgmem.Schema) string {
	key := strings.ToLower(strings.Join(strings.FieldsFunc(t, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " "))
	if key == "" {
		return kgmem.TypeOther
	}
	if schema != nil {
		for _, td := range schema.EntityTypes {
			if strings.EqualFold(td.Name, t) || strings.ToLower(td.Name) == key {
				return td.Name
			}
		}
	}
	for _, d := range kgmem.DefaultEntityTypes() {
		if strings.ToLower(d) == key {
			return d
		}
	}
	if v, ok := typeSynonyms[key]; ok {
		return v
	}
	if v, ok := typeSynonyms[strings.TrimSuffix(key, "s")]; ok {
		return v
	}
	if stem, ok := strings.CutSuffix(key, "ies"); ok {
		if v, ok := typeSynonyms[stem+"y"]; ok {
			return v
		}
	}
	return kgmem.TypeOther
}

// moreSpecificType returns the better of two types for one entity: a concrete
// type beats Other.
func moreSpecificType(current, candidate string) string {
	if current == "" || current == kgmem.TypeOther {
		if candidate != "" {
			return candidate
		}
	}
	return current
}
