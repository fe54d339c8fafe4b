package kgmem

import "time"

// Entity is a node of the memory graph: a person, organisation, project, place…
// Within a namespace an entity is found by its normalised name or any alias.
type Entity struct {
	ID        string    `json:"id"`
	Namespace Namespace `json:"namespace"`
	// Name is the canonical display name ("Bob Smith").
	Name string `json:"name"`
	// Aliases are other names the entity goes by ("Bob", "bob"); matched normalised.
	Aliases []string `json:"aliases,omitempty"`
	// Type is one of the default types (Person, Organization, …) or a user type.
	Type string `json:"type"`
	// Summary is an optional one-line description.
	Summary    string         `json:"summary,omitempty"`
	Attributes map[string]any `json:"attributes,omitempty"`
	CreatedAt  time.Time      `json:"created_at"`
	UpdatedAt  time.Time      `json:"updated_at"`
	Decay      DecayState     `json:"decay"`
}

// Names returns the canonical name followed by the aliases.
func (e Entity) Names() []string {
	return append([]string{e.Name}, e.Aliases...)
}

// Default entity types. Namespaces may declare more.
const (
	TypePerson       = "Person"
	TypeOrganization = "Organization"
	TypeTeam         = "Team"
	TypeProject      = "Project"
	TypePlace        = "Place"
	TypeEvent        = "Event"
	TypeObject       = "Object"
	TypeConcept      = "Concept"
	TypePreference   = "Preference"
	TypeOther        = "Other"
)

// DefaultEntityTypes lists the built-in entity types.
func DefaultEntityTypes() []string {
	return []string{TypePerson, TypeOrganization, TypeTeam, TypeProject, TypePlace, TypeEvent, TypeObject, TypeConcept, TypePreference, TypeOther}
}
