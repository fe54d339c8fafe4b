package synth

import "github.com/kgmem/kgmem"

// predicate is one relation of the vocabulary: its canonical name, the
// sentences that state it and the questions that ask about it. In templates
// {S} is the subject's name, {O} the object's, {T} a topic, {R} a role and
// {M} a month.
type predicate struct {
	name      string
	templates []string
	// questions ask for the object ({S} given) or the subject ({O} given).
	questions []string
}

// personPredicates are the relations a Person subject has, by object type.
var personPredicates = map[string][]predicate{
	kgmem.TypePerson: {
		{"mentors", []string{"{S} mentors {O}.", "{S} has been mentoring {O} on {T} since {M}."}, []string{"who does {S} mentor", "who mentors {O}"}},
		{"reports_to", []string{"{S} reports to {O}.", "Since {M}, {S} reports directly to {O}."}, []string{"who is {S}'s manager", "who reports to {O}"}},
		{"knows", []string{"{S} knows {O} from {T} club.", "{S} and {O} met through {T}."}, []string{"who does {S} know", "how did {S} meet {O}"}},
		{"married_to", []string{"{S} is married to {O}.", "{S} married {O} in {M}."}, []string{"who is {S} married to", "{O} spouse"}},
	},
	kgmem.TypeOrganization: {
		{"works_at", []string{"{S} works at {O}.", "{S} joined {O} as a {R} in {M}.", "{S} is a {R} at {O}."}, []string{"where does {S} work", "who works at {O}"}},
		{"founded", []string{"{S} founded {O}.", "{S} co-founded {O} to work on {T}."}, []string{"what company did {S} found", "founder of {O}"}},
		{"invested_in", []string{"{S} invested in {O}.", "In {M} {S} put money into {O}."}, []string{"what did {S} invest in", "investors in {O}"}},
	},
	kgmem.TypeTeam: {
		{"leads", []string{"{S} leads the {O}.", "{S} took over as lead of the {O} in {M}."}, []string{"who leads the {O}", "what team does {S} lead"}},
		{"member_of", []string{"{S} is on the {O}.", "{S} joined the {O} in {M}."}, []string{"which team is {S} on", "members of the {O}"}},
		{"manages", []string{"{S} manages the {O}.", "{S} has managed the {O} since {M}."}, []string{"who manages the {O}", "{S} manager of"}},
	},
	kgmem.TypeProject: {
		{"works_on", []string{"{S} works on {O}.", "{S} is building {O} with a focus on {T}."}, []string{"what is {S} working on", "who works on {O}"}},
		{"owns", []string{"{S} owns {O}.", "{S} is the owner of {O} since {M}."}, []string{"who owns {O}", "projects owned by {S}"}},
		{"reviewed", []string{"{S} reviewed the design of {O}.", "In {M} {S} reviewed {O}."}, []string{"who reviewed {O}", "what did {S} review"}},
	},
	kgmem.TypePlace: {
		{"lives_in", []string{"{S} lives in {O}.", "{S} moved to {O} in {M}."}, []string{"where does {S} live", "who lives in {O}"}},
		{"visited", []string{"{S} visited {O}.", "{S} spent a week in {O} in {M} for {T}."}, []string{"where did {S} travel", "who visited {O}"}},
		{"grew_up_in", []string{"{S} grew up in {O}.", "{S} is originally from {O}."}, []string{"where is {S} from", "who grew up in {O}"}},
	},
	kgmem.TypeEvent: {
		{"attended", []string{"{S} attended the {O}.", "{S} went to the {O} in {M}."}, []string{"what events did {S} attend", "who attended the {O}"}},
		{"spoke_at", []string{"{S} gave a talk on {T} at the {O}.", "{S} spoke at the {O}."}, []string{"where did {S} give a talk", "speakers at the {O}"}},
	},
	kgmem.TypeConcept: {
		{"interested_in", []string{"{S} is interested in {O}.", "{S} got into {O} in {M}."}, []string{"what is {S} interested in", "who likes {O}"}},
		{"expert_in", []string{"{S} is an expert in {O}.", "{S} teaches {O} on weekends."}, []string{"what is {S} an expert in", "who knows about {O}"}},
		{"dislikes", []string{"{S} dislikes {O}.", "{S} says {O} is overrated."}, []string{"what does {S} dislike", "who dislikes {O}"}},
	},
}

// otherPredicates are the relations of a non-person subject, by object type.
var otherPredicates = map[string][]predicate{
	kgmem.TypePerson: {
		{"founded_by", []string{"{S} was founded by {O}.", "{O} started {S} in {M}."}, []string{"who founded {S}", "what did {O} start"}},
		{"led_by", []string{"{S} is led by {O}.", "{O} runs {S}."}, []string{"who runs {S}", "what does {O} run"}},
	},
	kgmem.TypeOrganization: {
		{"partners_with", []string{"{S} partners with {O}.", "{S} signed a partnership with {O} on {T}."}, []string{"partners of {S}", "who partners with {O}"}},
		{"funded_by", []string{"{S} is funded by {O}.", "{O} funds {S} since {M}."}, []string{"who funds {S}", "what does {O} fund"}},
	},
	kgmem.TypeTeam: {
		{"supported_by", []string{"{S} is supported by the {O}.", "The {O} supports {S}."}, []string{"who supports {S}", "what does the {O} support"}},
	},
	kgmem.TypeProject: {
		{"depends_on", []string{"{S} depends on {O}.", "{S} relies on {O} for {T}."}, []string{"what does {S} depend on", "what depends on {O}"}},
	},
	kgmem.TypePlace: {
		{"located_in", []string{"{S} is located in {O}.", "{S} is based in {O}."}, []string{"where is {S}", "what is in {O}"}},
	},
	kgmem.TypeEvent: {
		{"sponsored", []string{"{S} sponsored the {O}.", "{S} was a sponsor of the {O} in {M}."}, []string{"what did {S} sponsor", "sponsors of the {O}"}},
	},
	kgmem.TypeConcept: {
		{"focuses_on", []string{"{S} focuses on {O}.", "{S} is all about {O}."}, []string{"what does {S} focus on", "who focuses on {O}"}},
	},
}

// predicateFor returns the relations a subject of type subj may have to an
// object of type obj.
func predicateFor(subj, obj string) []predicate {
	if subj == kgmem.TypePerson {
		return personPredicates[obj]
	}
	return otherPredicates[obj]
}

// entityTypes are the types the generator gives entities, with their shares.
var entityTypes = []struct {
	name  string
	share float64
}{
	{kgmem.TypePerson, 0.45},
	{kgmem.TypeOrganization, 0.10},
	{kgmem.TypeTeam, 0.08},
	{kgmem.TypeProject, 0.10},
	{kgmem.TypePlace, 0.10},
	{kgmem.TypeEvent, 0.07},
	{kgmem.TypeConcept, 0.10},
}

var months = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
