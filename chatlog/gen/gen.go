// Package gen writes a seeded synthetic chat log in chatlog's JSONL format,
// for ingestion benchmarks and tests: the same seed gives the same bytes.
//
// Every message states one fact in a fixed shape ("Ann Lee works on Project
// Falcon.", "Bo Chen lives in Lisbon.") so a scripted test LLM can extract it
// with FactPattern, and threads interleave the way logs of several users do
// not: each thread's messages are consecutive, threads follow one another.
package gen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"time"
)

// Config shapes the log.
type Config struct {
	// Messages in total (default 1000).
	Messages int
	// Namespaces the threads are spread over (default 10), "gen/ns<k>".
	Namespaces int
	// MessagesPerThread (default 100).
	MessagesPerThread int
	// Seed makes the content reproducible.
	Seed uint64
}

var (
	firstNames = []string{"Ann", "Bo", "Carla", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea"}
	lastNames  = []string{"Lee", "Chen", "Ruiz", "Shah", "Berg", "Okafor", "Novak", "Sato", "Moreau", "Silva"}
	projects   = []string{"Falcon", "Atlas", "Nova", "Orion", "Quartz", "Willow", "Ember", "Pioneer"}
	cities     = []string{"Lisbon", "Osaka", "Lagos", "Denver", "Tallinn", "Quito", "Hanoi", "Perth"}
	hobbies    = []string{"chess", "climbing", "baking", "cycling", "painting", "sailing", "running"}
)

// FactPattern matches the fact a generated message states: subject,
// predicate words and object.
var FactPattern = regexp.MustCompile(`^([A-Z][a-z]+ [A-Z][a-z]+) (works on|lives in|enjoys) ([A-Za-z ]+)\.`)

// line is one JSONL record.
type line struct {
	Namespace string    `json:"namespace"`
	ThreadID  string    `json:"thread_id"`
	ID        string    `json:"id"`
	Role      string    `json:"role"`
	Name      string    `json:"name"`
	Content   string    `json:"content"`
	Timestamp time.Time `json:"timestamp"`
}

// Write writes cfg.Messages JSONL lines to w.
func Write(w io.Writer, cfg Config) error {
	if cfg.Messages <= 0 {
		cfg.Messages = 1000
	}
	if cfg.Namespaces <= 0 {
		cfg.Namespaces = 10
	}
	if cfg.MessagesPerThread <= 0 {
		cfg.MessagesPerThread = 100
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	start := time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC)
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	for i := range cfg.Messages {
		thread := i / cfg.MessagesPerThread
		person := pick(firstNames) + " " + pick(lastNames)
		var content string
		switch rng.IntN(3) {
		case 0:
			content = fmt.Sprintf("%s works on Project %s. We sync on Tuesdays.", person, pick(projects))
		case 1:
			content = fmt.Sprintf("%s lives in %s. The weather there is %s.", person, pick(cities), pick([]string{"mild", "wet", "hot"}))
		default:
			content = fmt.Sprintf("%s enjoys %s. Started %d years ago.", person, pick(hobbies), 1+rng.IntN(20))
		}
		l := line{
			Namespace: fmt.Sprintf("gen/ns%d", thread%cfg.Namespaces),
			ThreadID:  fmt.Sprintf("thread-%d", thread),
			ID:        fmt.Sprintf("m%d", i%cfg.MessagesPerThread),
			Role:      []string{"user", "assistant"}[i%2],
			Name:      person,
			Content:   content,
			Timestamp: start.Add(time.Duration(i) * time.Minute),
		}
		if err := enc.Encode(l); err != nil {
			return fmt.Errorf("write generated chat log: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write generated chat log: %w", err)
	}
	return nil
}
