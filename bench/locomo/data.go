package locomo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
)

// Conversation is one LoCoMo conversation between two speakers over many sessions.
type Conversation struct {
	// ID names the conversation after its file ("26" for 26.json).
	ID       string
	SpeakerA string
	SpeakerB string
	// Sessions are in session-number order.
	Sessions []Session
	// Questions are all of the file's questions, every category included.
	Questions []Question
}

// Session is one dated conversation session.
type Session struct {
	// Number is N of session_N.
	Number int
	// DateTime is the session's date as written in the data ("1:56 pm on 8 May, 2023").
	DateTime string
	// Time is DateTime parsed, in UTC.
	Time  time.Time
	Turns []Turn
}

// Turn is one utterance.
type Turn struct {
	Speaker string `json:"speaker"`
	// DiaID identifies the turn within its conversation ("D1:3").
	DiaID string `json:"dia_id"`
	Text  string `json:"text"`
	// BlipCaption is a generated caption of a photo shared with the turn, if any.
	BlipCaption string `json:"blip_caption,omitempty"`
}

// Content is the turn's text plus " [photo: <caption>]" when a photo was shared:
// what is ingested as the message content and indexed by the BM25 baseline.
func (t Turn) Content() string {
	if t.BlipCaption == "" {
		return t.Text
	}
	return t.Text + " [photo: " + t.BlipCaption + "]"
}

// Question is one LoCoMo question with the turns that support its answer.
type Question struct {
	// Index is the question's position in the file's qa list.
	Index    int      `json:"-"`
	Question string   `json:"question"`
	Answer   any      `json:"answer,omitempty"`
	Evidence []string `json:"evidence"`
	// Category is 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial.
	Category int `json:"category"`
}

// CategoryName names a LoCoMo question category.
func CategoryName(c int) string {
	switch c {
	case 1:
		return "multi-hop"
	case 2:
		return "temporal"
	case 3:
		return "open-domain"
	case 4:
		return "single-hop"
	case 5:
		return "adversarial"
	}
	return "category " + strconv.Itoa(c)
}

var sessionKey = regexp.MustCompile(`^session_([0-9]+)$`)

// Load reads every *.json conversation in dir, ordered by file name.
func Load(dir string) ([]Conversation, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list conversations in %s: %w", dir, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("load conversations: no *.json file in %q: %w", dir, kgmem.ErrNotFound)
	}
	sort.Strings(paths)
	convs := make([]Conversation, 0, len(paths))
	for _, p := range paths {
		c, err := LoadFile(p)
		if err != nil {
			return nil, err
		}
		convs = append(convs, c)
	}
	return convs, nil
}

// LoadFile reads one conversation file; its ID is the file name without ".json".
func LoadFile(path string) (Conversation, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Conversation{}, fmt.Errorf("read conversation: %w", err)
	}
	id := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	c, err := ParseConversation(id, raw)
	if err != nil {
		return Conversation{}, fmt.Errorf("parse %s: %w", path, err)
	}
	return c, nil
}

// ParseConversation decodes one conversation in the released LoCoMo layout.
func ParseConversation(id string, raw []byte) (Conversation, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Conversation{}, fmt.Errorf("%w: conversation is not a JSON object: %v", kgmem.ErrInvalid, err)
	}
	c := Conversation{ID: id}
	for key, dst := range map[string]*string{"speaker_a": &c.SpeakerA, "speaker_b": &c.SpeakerB} {
		if v, ok := fields[key]; ok {
			if err := json.Unmarshal(v, dst); err != nil {
				return Conversation{}, kgmem.Invalidf(key, "is not a string: %v", err)
			}
		}
	}
	for key, v := range fields {
		m := sessionKey.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return Conversation{}, kgmem.Invalidf(key, "session number: %v", err)
		}
		s := Session{Number: n}
		if err := json.Unmarshal(v, &s.Turns); err != nil {
			return Conversation{}, kgmem.Invalidf(key, "is not a list of turns: %v", err)
		}
		dateKey := key + "_date_time"
		dv, ok := fields[dateKey]
		if !ok {
			return Conversation{}, kgmem.Invalidf(dateKey, "is missing")
		}
		if err := json.Unmarshal(dv, &s.DateTime); err != nil {
			return Conversation{}, kgmem.Invalidf(dateKey, "is not a string: %v", err)
		}
		if s.Time, err = ParseSessionTime(s.DateTime); err != nil {
			return Conversation{}, fmt.Errorf("%s: %w", dateKey, err)
		}
		for i, t := range s.Turns {
			if t.DiaID == "" {
				return Conversation{}, kgmem.Invalidf(fmt.Sprintf("%s[%d].dia_id", key, i), "is empty")
			}
		}
		c.Sessions = append(c.Sessions, s)
	}
	sort.Slice(c.Sessions, func(i, j int) bool { return c.Sessions[i].Number < c.Sessions[j].Number })
	if qa, ok := fields["qa"]; ok {
		if err := json.Unmarshal(qa, &c.Questions); err != nil {
			return Conversation{}, kgmem.Invalidf("qa", "is not a list of questions: %v", err)
		}
		for i := range c.Questions {
			c.Questions[i].Index = i
		}
	}
	return c, nil
}

// Turns returns the conversation's turns in session order.
func (c Conversation) Turns() []Turn {
	var out []Turn
	for _, s := range c.Sessions {
		out = append(out, s.Turns...)
	}
	return out
}
