package triples

import (
	"strings"
	"unicode"

	"github.com/kgmem/kgmem"
)

// relation is one row of the built-in cardinality table: a canonical
// predicate, how many values it holds at one time, and the spellings that
// mean it.
type relation struct {
	// canon is the canonical lower_snake predicate.
	canon string
	card  kgmem.Cardinality
	// group names a role shared by several predicates: one holder of the
	// group at a time ("leads" and "manages" are both the "lead" of a team).
	// Empty: the predicate alone.
	group string
	// specific limits a one_subject rule to objects named as one particular
	// thing (a proper name: "Villa Rosa", "Tesla Model 3"), not a kind of
	// thing ("a dog"), which many can own at once.
	specific bool
	// synonyms are active spellings (lower_snake) that mean canon.
	synonyms []string
	// passives are spellings meaning canon with subject and object swapped
	// ("is led by": "the ML team is led by Bob" is "Bob leads the ML team").
	passives []string
}

// cardinalityTable is the curated table of single-valued relations. Anything
// not listed is CardinalityMany unless a namespace overrides it (settings
// "cardinality" or schema relation_types[].cardinality) or, with an LLM
// configured, the judge decides that a new object replaces an old one.
//
// one_object: one object per subject at a time — a person lives in one
// place, works at one employer, has one age, one job title.
// one_subject: one subject per object at a time — a company has one CEO, a
// team one lead, a specific thing one owner.
// one_each: both, in either direction — one spouse per person.
var cardinalityTable = []relation{
	// where someone is
	{canon: "lives_in", card: kgmem.CardinalityOneObject,
		synonyms: []string{"live_in", "resides_in", "reside_in", "is_living_in", "living_in", "is_based_in", "based_in",
			"moved_to", "has_moved_to", "relocated_to", "lives_at", "resides_at", "has_home_in", "is_residing_in",
			"now_lives_in", "currently_lives_in", "is_resident_of", "resident_of"},
		passives: []string{"is_home_to", "home_to"}},
	{canon: "is_located_in", card: kgmem.CardinalityOneObject,
		synonyms: []string{"located_in", "is_situated_in", "situated_in", "is_headquartered_in", "headquartered_in",
			"has_headquarters_in"}},
	{canon: "has_address", card: kgmem.CardinalityOneObject, synonyms: []string{"address_is", "has_home_address", "home_address_is"}},
	// work and study
	{canon: "works_at", card: kgmem.CardinalityOneObject,
		synonyms: []string{"works_for", "work_at", "work_for", "is_employed_by", "employed_by", "is_employed_at",
			"employed_at", "is_employee_of", "employee_of", "is_working_at", "working_at", "is_working_for",
			"working_for", "has_job_at", "now_works_at", "currently_works_at", "is_hired_by",
			"hired_by", "was_hired_by", "is_staff_at", "is_on_staff_at"},
		passives: []string{"employs", "has_employee", "is_employer_of", "employer_of", "hired"}},
	{canon: "has_job_title", card: kgmem.CardinalityOneObject,
		synonyms: []string{"has_title", "job_title_is", "title_is", "works_as", "is_employed_as", "employed_as",
			"has_position", "position_is", "has_occupation", "occupation_is", "has_job", "job_is", "is_working_as",
			"working_as", "has_profession", "profession_is"}},
	{canon: "has_role", card: kgmem.CardinalityOneObject, synonyms: []string{"role_is", "serves_as", "acts_as"}},
	{canon: "reports_to", card: kgmem.CardinalityOneObject,
		synonyms: []string{"report_to", "reporting_to", "has_manager", "has_boss", "manager_is", "boss_is", "is_report_of"},
		passives: []string{"has_report", "has_direct_report"}},
	{canon: "studies_at", card: kgmem.CardinalityOneObject,
		synonyms: []string{"study_at", "is_studying_at", "studying_at", "is_student_at", "student_at", "is_enrolled_at",
			"enrolled_at", "is_enrolled_in", "attends_school", "goes_to_school_at", "attends_university"}},
	{canon: "plays_for", card: kgmem.CardinalityOneObject, synonyms: []string{"play_for", "is_player_for", "is_playing_for"}},
	{canon: "has_salary", card: kgmem.CardinalityOneObject, synonyms: []string{"salary_is", "makes_salary_of"}},
	// people's attributes
	{canon: "has_age", card: kgmem.CardinalityOneObject, synonyms: []string{"is_aged", "aged", "age", "age_is", "is_years_old", "has_age_of", "is_age"}},
	{canon: "has_height", card: kgmem.CardinalityOneObject, synonyms: []string{"height_is"}},
	{canon: "has_weight", card: kgmem.CardinalityOneObject, synonyms: []string{"weight_is", "weighs"}},
	{canon: "has_phone_number", card: kgmem.CardinalityOneObject,
		synonyms: []string{"phone_number_is", "phone_is", "has_phone", "has_mobile_number", "mobile_number_is", "has_telephone_number"}},
	{canon: "has_email", card: kgmem.CardinalityOneObject, synonyms: []string{"email_is", "has_email_address", "email_address_is"}},
	{canon: "has_relationship_status", card: kgmem.CardinalityOneObject, synonyms: []string{"relationship_status_is"}},
	{canon: "was_born_in", card: kgmem.CardinalityOneObject, synonyms: []string{"born_in", "is_born_in", "birthplace_is", "born_at", "was_born_at", "has_birthplace"}},
	{canon: "was_born_on", card: kgmem.CardinalityOneObject,
		synonyms: []string{"born_on", "birthday_is", "has_birthday", "has_birthday_on", "date_of_birth_is", "has_birth_date", "has_date_of_birth"}},
	// partners (symmetric)
	{canon: "is_married_to", card: kgmem.CardinalityOneEach,
		synonyms: []string{"married_to", "is_spouse_of", "spouse_of", "is_wife_of", "is_husband_of", "wife_of", "husband_of",
			"married", "has_married", "got_married_to", "has_spouse", "has_wife", "has_husband", "is_wed_to", "wed_to", "wed"}},
	{canon: "is_engaged_to", card: kgmem.CardinalityOneEach,
		synonyms: []string{"engaged_to", "got_engaged_to", "is_fiance_of", "fiance_of", "is_fiancee_of", "fiancee_of", "has_fiance", "has_fiancee"}},
	{canon: "is_dating", card: kgmem.CardinalityOneEach,
		synonyms: []string{"dates", "is_going_out_with", "going_out_with", "is_in_relationship_with",
			"in_relationship_with", "has_girlfriend", "has_boyfriend", "is_girlfriend_of", "is_boyfriend_of", "girlfriend_of",
			"boyfriend_of", "is_romantically_involved_with"}},
	// roles with one holder at a time
	{canon: "leads", card: kgmem.CardinalityOneSubject, group: "lead",
		synonyms: []string{"lead", "is_lead_of", "lead_of", "heads", "head", "is_head_of", "head_of",
			"is_leading", "leading", "is_leader_of", "leader_of", "now_leads",
			"is_in_charge_of", "in_charge_of", "is_team_lead_of", "team_lead_of", "is_tech_lead_of"},
		passives: []string{"is_led_by", "led_by", "is_headed_by", "headed_by", "is_run_by", "run_by", "has_lead", "has_leader", "has_head"}},
	{canon: "manages", card: kgmem.CardinalityOneSubject, group: "lead",
		synonyms: []string{"is_manager_of", "manager_of", "manage", "is_managing", "managing"},
		passives: []string{"is_managed_by", "managed_by"}},
	{canon: "is_ceo_of", card: kgmem.CardinalityOneSubject,
		synonyms: []string{"ceo_of", "is_chief_executive_of", "chief_executive_of", "is_chief_executive_officer_of",
			"chief_executive_officer_of", "serves_as_ceo_of", "became_ceo_of", "is_ceo_at", "ceo_at"},
		passives: []string{"has_ceo", "has_as_ceo", "ceo_is", "has_chief_executive"}},
	{canon: "is_cto_of", card: kgmem.CardinalityOneSubject,
		synonyms: []string{"cto_of", "is_chief_technology_officer_of", "is_cto_at", "cto_at"}, passives: []string{"has_cto", "cto_is"}},
	{canon: "is_cfo_of", card: kgmem.CardinalityOneSubject,
		synonyms: []string{"cfo_of", "is_chief_financial_officer_of", "is_cfo_at", "cfo_at"}, passives: []string{"has_cfo", "cfo_is"}},
	{canon: "is_coo_of", card: kgmem.CardinalityOneSubject,
		synonyms: []string{"coo_of", "is_chief_operating_officer_of", "is_coo_at", "coo_at"}, passives: []string{"has_coo", "coo_is"}},
	{canon: "is_president_of", card: kgmem.CardinalityOneSubject,
		synonyms: []string{"president_of", "presides_over", "became_president_of"},
		passives: []string{"has_president", "president_is", "is_presided_over_by"}},
	{canon: "is_vice_president_of", card: kgmem.CardinalityOneSubject,
		synonyms: []string{"vice_president_of"}, passives: []string{"has_vice_president"}},
	{canon: "chairs", card: kgmem.CardinalityOneSubject,
		synonyms: []string{"chair", "is_chair_of", "chair_of", "is_chairman_of", "chairman_of", "is_chairwoman_of",
			"chairwoman_of", "is_chairperson_of", "chairperson_of", "is_chairing", "chairing"},
		passives: []string{"is_chaired_by", "chaired_by", "has_chair", "has_chairman", "has_chairwoman", "has_chairperson"}},
	{canon: "is_mayor_of", card: kgmem.CardinalityOneSubject, synonyms: []string{"mayor_of"}, passives: []string{"has_mayor", "mayor_is"}},
	{canon: "is_governor_of", card: kgmem.CardinalityOneSubject, synonyms: []string{"governor_of"}, passives: []string{"has_governor"}},
	{canon: "is_prime_minister_of", card: kgmem.CardinalityOneSubject, synonyms: []string{"prime_minister_of", "is_pm_of"},
		passives: []string{"has_prime_minister"}},
	{canon: "is_principal_of", card: kgmem.CardinalityOneSubject, synonyms: []string{"principal_of", "is_headmaster_of", "is_headmistress_of", "is_head_teacher_of"},
		passives: []string{"has_principal", "has_headmaster"}},
	{canon: "is_head_coach_of", card: kgmem.CardinalityOneSubject, synonyms: []string{"head_coach_of"},
		passives: []string{"has_head_coach"}},
	{canon: "is_captain_of", card: kgmem.CardinalityOneSubject, synonyms: []string{"captain_of", "captains", "skippers"},
		passives: []string{"is_captained_by", "captained_by", "has_captain"}},
	{canon: "owns", card: kgmem.CardinalityOneSubject, specific: true,
		synonyms: []string{"own", "is_owner_of", "owner_of", "has_ownership_of", "now_owns"},
		passives: []string{"is_owned_by", "owned_by", "is_property_of", "property_of"}},
}

// favoritePrefixes make a predicate single-valued per subject: a person has
// one favourite colour, book, food at a time.
var favoritePrefixes = []string{"has_favorite_", "favorite_", "has_favourite_", "favourite_"}

// relationsByCanon indexes cardinalityTable.
var relationsByCanon = func() map[string]relation {
	m := make(map[string]relation, len(cardinalityTable))
	for _, r := range cardinalityTable {
		m[r.canon] = r
	}
	return m
}()

// tableSynonyms and tablePassives are the table's spellings, merged into the
// predicate normalizer's maps.
func tableSynonyms() (active, passive map[string]string) {
	active, passive = map[string]string{}, map[string]string{}
	for _, r := range cardinalityTable {
		for _, s := range r.synonyms {
			active[s] = r.canon
		}
		for _, s := range r.passives {
			passive[s] = r.canon
		}
	}
	return active, passive
}

// builtinCardinality is the table's answer for a canonical predicate.
func builtinCardinality(pred string) kgmem.Cardinality {
	if _, neg := Negated(pred); neg {
		return kgmem.CardinalityMany
	}
	if r, ok := relationsByCanon[pred]; ok {
		return r.card
	}
	for _, p := range favoritePrefixes {
		if strings.HasPrefix(pred, p) && len(pred) > len(p) {
			return kgmem.CardinalityOneObject
		}
	}
	return kgmem.CardinalityMany
}

// BuiltinCardinality returns the built-in table's cardinality for a
// predicate in any spelling ("is led by", "CEO of"): CardinalityMany when the
// table does not list it or the predicate is invalid. Passive spellings
// answer for the active form ("is led by" → leads → one_subject).
func BuiltinCardinality(predicate string) kgmem.Cardinality {
	p, err := NormalizePredicate(predicate)
	if err != nil {
		return kgmem.CardinalityMany
	}
	return builtinCardinality(p)
}

// cardinalities resolves cardinalities for one ingest: namespace overrides
// first, then the built-in table.
type cardinalities struct {
	overrides map[string]kgmem.Cardinality // canonical predicate → cardinality
}

// newCardinalities normalises the override keys with preds: a passive
// spelling overrides the active predicate with the sides swapped.
func newCardinalities(preds *PredicateNormalizer, schema *kgmem.Schema, settings map[string]kgmem.Cardinality) cardinalities {
	c := cardinalities{overrides: map[string]kgmem.Cardinality{}}
	set := func(name string, card kgmem.Cardinality) {
		if !card.Valid() {
			return
		}
		p, swap, err := preds.normalize(name)
		if err != nil {
			return
		}
		if swap {
			switch card {
			case kgmem.CardinalityOneObject:
				card = kgmem.CardinalityOneSubject
			case kgmem.CardinalityOneSubject:
				card = kgmem.CardinalityOneObject
			}
		}
		c.overrides[p] = card
	}
	if schema != nil {
		for _, td := range schema.RelationTypes {
			set(td.Name, td.Cardinality)
		}
	}
	for name, card := range settings {
		set(name, card)
	}
	return c
}

// of returns the cardinality of a canonical predicate.
func (c cardinalities) of(pred string) kgmem.Cardinality {
	if card, ok := c.overrides[pred]; ok {
		return card
	}
	return builtinCardinality(pred)
}

// group returns the role group of a canonical predicate: predicates of one
// group exclude each other ("leads" and "manages"). An overridden predicate
// is its own group.
func (c cardinalities) group(pred string) string {
	if _, ok := c.overrides[pred]; ok {
		return pred
	}
	if r, ok := relationsByCanon[pred]; ok && r.group != "" {
		return r.group
	}
	return pred
}

// needsSpecific reports whether a one_subject rule of pred only applies to
// objects named as one particular thing.
func (c cardinalities) needsSpecific(pred string) bool {
	if _, ok := c.overrides[pred]; ok {
		return false
	}
	return relationsByCanon[pred].specific
}

// groupPredicates lists the canonical predicates of a role group known to
// the table or the overrides (the group's own name included when it is one).
func (c cardinalities) groupPredicates(pred string) []string {
	g := c.group(pred)
	out := []string{pred}
	for _, r := range cardinalityTable {
		if r.canon != pred && r.group != "" && r.group == g && c.group(r.canon) == g {
			out = append(out, r.canon)
		}
	}
	return out
}

// specificName reports whether an entity name names one particular thing: it
// starts with an upper-case letter or a digit and not with an article or a
// possessive ("Villa Rosa", "Tesla Model 3"; not "a dog", "My car").
func specificName(name string) bool {
	first, _, _ := strings.Cut(name, " ")
	switch strings.ToLower(first) {
	case "a", "an", "some", "my", "our", "your", "his", "her", "their", "its", "one", "another":
		return false
	}
	for _, r := range name {
		return unicode.IsUpper(r) || unicode.IsDigit(r) || unicode.IsTitle(r)
	}
	return false
}
