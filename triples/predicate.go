package triples

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"golang.org/x/text/unicode/norm"
)

// MaxPredicateLen is the longest canonical predicate, in bytes (the
// lower_snake form, after synonyms and the "not_" of a negation). A longer
// predicate is an error wrapping kgmem.ErrInvalid, never cut: two long
// predicates that share their first 64 bytes stay two relations.
const MaxPredicateLen = 64

// NegationPrefix marks a negated predicate: "doesn't like" becomes "not_likes".
// A negated fact contradicts its positive form and vice versa.
const NegationPrefix = "not_"

// defaultSynonyms maps predicate spellings (already in lower_snake form) to their
// canonical predicate. Verb forms that only differ in intensity of the same
// polarity share one predicate ("loves", "enjoys" → "likes"): the fact text keeps
// the nuance, the predicate carries the structure the update decision needs.
// Opposite polarities stay apart ("dislikes", "not_likes").
var defaultSynonyms = map[string]string{
	// leadership and management
	"is_manager_of": "manages", "manager_of": "manages", "is_the_manager_of": "manages", "manage": "manages",
	"supervises": "manages", "oversees": "manages", "is_managing": "manages", "managing": "manages",
	"lead": "leads", "is_lead_of": "leads", "lead_of": "leads", "is_the_lead_of": "leads", "heads": "leads",
	"is_head_of": "leads", "head_of": "leads", "is_leading": "leads", "leading": "leads", "is_leader_of": "leads",
	"leader_of": "leads", "now_leads": "leads", "is_in_charge_of": "leads",
	"mentor": "mentors", "is_mentor_of": "mentors", "mentor_of": "mentors", "is_mentoring": "mentors", "mentoring": "mentors",
	"report_to": "reports_to", "reporting_to": "reports_to",
	// work
	"works_for": "works_at", "work_at": "works_at", "work_for": "works_at", "is_employed_by": "works_at",
	"employed_by": "works_at", "is_employed_at": "works_at", "employed_at": "works_at", "is_employee_of": "works_at",
	"employee_of": "works_at", "is_working_at": "works_at", "working_at": "works_at",
	"work_on": "works_on", "is_working_on": "works_on", "working_on": "works_on",
	"is_member_of": "member_of", "belongs_to": "member_of", "is_part_of_team": "member_of", "is_in_team": "member_of",
	// places and family
	"live_in": "lives_in", "resides_in": "lives_in", "is_living_in": "lives_in", "living_in": "lives_in",
	"is_based_in": "lives_in", "based_in": "lives_in", "moved_to": "lives_in", "lives_at": "lives_in",
	"married_to": "is_married_to", "is_spouse_of": "is_married_to", "spouse_of": "is_married_to",
	"is_wife_of": "is_married_to", "is_husband_of": "is_married_to", "wife_of": "is_married_to", "husband_of": "is_married_to",
	"is_friends_with": "is_friend_of", "friends_with": "is_friend_of", "friend_of": "is_friend_of",
	// preferences
	"like": "likes", "loves": "likes", "love": "likes", "enjoys": "likes", "enjoy": "likes", "adores": "likes",
	"is_fond_of": "likes", "fond_of": "likes", "is_into": "likes", "really_likes": "likes", "likes_to_eat": "likes",
	"dislike": "dislikes", "hates": "dislikes", "hate": "dislikes", "detests": "dislikes",
	"prefer": "prefers", "allergic_to": "is_allergic_to", "has_allergy_to": "is_allergic_to",
}

// inversePredicates map a passive spelling to the canonical predicate with
// subject and object swapped: "Bob is managed by Alice" is "Alice manages Bob".
var inversePredicates = map[string]string{
	"is_managed_by": "manages", "managed_by": "manages", "is_led_by": "leads", "led_by": "leads",
	"is_headed_by": "leads", "is_mentored_by": "mentors", "mentored_by": "mentors", "employs": "works_at",
	"has_employee": "works_at",
}

// negationPrefixes are the lower_snake spellings of a negation that precede a predicate.
var negationPrefixes = []string{
	"no_longer_", "not_", "does_not_", "doesnt_", "do_not_", "dont_", "did_not_", "didnt_",
	"is_not_", "isnt_", "are_not_", "arent_", "never_", "stopped_", "no_more_", "not_anymore_",
}

// PredicateNormalizer canonicalises predicates with the default synonym map
// plus user synonyms. The zero value is not usable; use NewPredicateNormalizer.
// It is immutable and safe for concurrent use.
type PredicateNormalizer struct {
	synonyms map[string]string
	inverse  map[string]string // passive spelling → canonical, subject and object swapped
}

// NewPredicateNormalizer returns a normalizer whose synonym map is the default
// one extended (and overridden) by extra. Keys and values of extra are
// normalised mechanically first, so {"Is Boss Of": "manages"} works.
func NewPredicateNormalizer(extra map[string]string) *PredicateNormalizer {
	active, passive := tableSynonyms()
	syn := make(map[string]string, len(defaultSynonyms)+len(active)+len(extra))
	for k, v := range defaultSynonyms {
		syn[k] = v
	}
	for k, v := range active {
		syn[k] = v
	}
	inverse := make(map[string]string, len(inversePredicates)+len(passive))
	for k, v := range inversePredicates {
		inverse[k] = v
	}
	for k, v := range passive {
		inverse[k] = v
	}
	for k, v := range extra {
		kk, vv := snake(k), snake(v)
		if kk != "" && vv != "" {
			syn[kk] = vv
		}
	}
	return &PredicateNormalizer{synonyms: syn, inverse: inverse}
}

var defaultNormalizer = NewPredicateNormalizer(nil)

// NormalizePredicate returns the canonical lower_snake form of p with the default
// synonyms: Unicode NFKC, camelCase split, Latin diacritics folded to ASCII
// ("café" → "cafe"), letters of other scripts kept (lower-cased), apostrophes
// dropped ("doesn't" → "doesnt"), every other run of punctuation, symbols or
// spaces collapsed to one "_", synonyms mapped ("is manager of" → "manages"),
// negations written as "not_" + the canonical positive ("doesn't like any more"
// → "not_likes"), articles dropped ("is the CEO of" → "is_ceo_of"), British
// spellings unified ("favourite colour" → "favorite_color"). A predicate with nothing left, or longer than
// MaxPredicateLen bytes, is an error wrapping kgmem.ErrInvalid.
func NormalizePredicate(p string) (string, error) { return defaultNormalizer.Normalize(p) }

// CanonicalPredicate is NormalizePredicate that also reports whether p is a
// passive spelling ("is managed by"), whose subject and object swap in the
// canonical triple.
func CanonicalPredicate(p string) (canon string, swap bool, err error) {
	return defaultNormalizer.normalize(p)
}

// Normalize returns the canonical form of p; see NormalizePredicate.
func (n *PredicateNormalizer) Normalize(p string) (string, error) {
	canon, _, err := n.normalize(p)
	return canon, err
}

// normalize also reports whether subject and object must be swapped (passive
// spellings such as "is managed by").
func (n *PredicateNormalizer) normalize(p string) (canon string, swap bool, err error) {
	s := snake(p)
	if s == "" {
		return "", false, kgmem.Invalidf("predicate", "%q has no letters or digits", truncateForMessage(p))
	}
	s = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, "_any_more"), "_anymore"), "_any_longer")
	s = plainWords(s)
	negated := false
	for changed := true; changed; {
		changed = false
		for _, pre := range negationPrefixes {
			if rest, ok := strings.CutPrefix(s, pre); ok && rest != "" {
				negated, s, changed = true, rest, true
				break
			}
		}
	}
	if v, ok := n.synonyms[s]; ok {
		s = v
	} else if v, ok := n.inverse[s]; ok {
		s, swap = v, true
	}
	if negated {
		s = NegationPrefix + s
	}
	if len(s) > MaxPredicateLen {
		return "", false, kgmem.Invalidf("predicate", "%q is %d bytes in canonical form (%s…), at most %d allowed",
			truncateForMessage(p), len(s), truncateForMessage(s), MaxPredicateLen)
	}
	return s, swap, nil
}

// articles are dropped from predicates: "is the CEO of" is "is CEO of".
var articles = map[string]bool{"the": true, "a": true, "an": true}

// spellings maps British spellings of predicate words to one spelling, so
// "favourite colour" and "favorite color" are one relation.
var spellings = map[string]string{
	"favourite": "favorite", "colour": "color", "organisation": "organization", "neighbour": "neighbor",
	"centre": "center", "theatre": "theater", "licence": "license", "programme": "program",
}

// plainWords drops articles after the first word and unifies spellings.
func plainWords(s string) string {
	words := strings.Split(s, "_")
	out := words[:0:0]
	for i, w := range words {
		if i > 0 && articles[w] {
			continue
		}
		if v, ok := spellings[w]; ok {
			w = v
		}
		out = append(out, w)
	}
	return strings.Join(out, "_")
}

// Negated reports whether a canonical predicate is a negation and returns its
// positive form ("not_likes" → "likes", true).
func Negated(pred string) (positive string, ok bool) {
	return strings.CutPrefix(pred, NegationPrefix)
}

// snake is the mechanical part of normalisation: lower_snake with Latin
// diacritics folded and punctuation collapsed.
func snake(p string) string {
	// Invalid UTF-8 separates words: left in, it kept NFKC from seeing the
	// letter after it ("\xf0ǅ" stayed "ǅ" where a second pass made it "dz").
	p = norm.NFKC.String(strings.ToValidUTF8(p, " "))
	// Split camelCase before lower-casing: "worksAt" → "works At".
	var b strings.Builder
	prev := rune(0)
	for _, r := range p {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			b.WriteRune(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	// NFKD, not NFD: a lower-cased letter may have a compatibility
	// decomposition its capital's NFKC form did not expose ("ǅ" → "ǆ" →
	// "dž"), and the result must not change when normalised again.
	decomposed := norm.NFKD.String(strings.ToLower(b.String()))
	b.Reset()
	sep := false
	for _, r := range decomposed {
		switch {
		case unicode.Is(unicode.Mn, r):
			// combining mark of a decomposed letter: drop it (é → e).
		case r == '\'' || r == '’' || r == '‘' || r == '`':
			// apostrophes join contractions: doesn't → doesnt.
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			if f, ok := foldLetter[r]; ok {
				b.WriteString(f)
			} else {
				b.WriteRune(r)
			}
		default:
			sep = true
		}
	}
	return norm.NFC.String(b.String())
}

// foldLetter transliterates Latin letters that do not decompose.
var foldLetter = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d", 'þ': "th", 'ı': "i",
}

func truncateForMessage(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:40]) + "…"
}

// predicateWords renders a canonical predicate for a sentence: "works_at" → "works at".
func predicateWords(p string) string {
	if pos, ok := Negated(p); ok {
		return "does not " + strings.ReplaceAll(strings.TrimSuffix(pos, "s"), "_", " ")
	}
	return strings.ReplaceAll(p, "_", " ")
}
