package longmemeval

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
)

// DefaultFile is the development split's file name in its folder.
const DefaultFile = "longmemeval_s_dev.json.gz"

// DateLayout is the data set's date format ("2023/05/30 (Tue) 18:40").
const DateLayout = "2006/01/02 (Mon) 15:04"

// Question is one LongMemEval question with its own haystack.
type Question struct {
	ID   string `json:"question_id"`
	Type string `json:"question_type"`
	// Question is the text searched for.
	Question string `json:"question"`
	Answer   Answer `json:"answer"`
	// Date is when the question is asked, in DateLayout.
	Date string `json:"question_date"`
	// Sessions, SessionIDs and SessionDates are parallel.
	Sessions     [][]Turn `json:"haystack_sessions"`
	SessionIDs   []string `json:"haystack_session_ids"`
	SessionDates []string `json:"haystack_dates"`
	// AnswerSessions are the sessions that hold the evidence.
	AnswerSessions []string `json:"answer_session_ids"`
}

// Turn is one chat turn of a session.
type Turn struct {
	// Role is "user" or "assistant".
	Role    string `json:"role"`
	Content string `json:"content"`
	// HasAnswer marks an evidence turn.
	HasAnswer bool `json:"has_answer,omitempty"`
}

// Answer is a question's reference answer: the data holds strings and a
// few bare numbers, kept here as their text.
type Answer string

// UnmarshalJSON reads a JSON string, or any other JSON value as its text.
func (a *Answer) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = Answer(s)
		return nil
	}
	*a = Answer(strings.TrimSpace(string(b)))
	return nil
}

// Abstention reports whether the question is an abstention question (its
// answer is not in the haystack); those are left out of retrieval scores.
func (q Question) Abstention() bool { return strings.HasSuffix(q.ID, "_abs") }

// ParseDate parses a date in DateLayout as UTC.
func ParseDate(s string) (time.Time, error) {
	t, err := time.Parse(DateLayout, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q: %w", s, err)
	}
	return t, nil
}

// Load reads the questions from path: a .json or gzip-compressed .json.gz
// file holding one JSON array, or a folder holding DefaultFile (or its
// uncompressed longmemeval_s_dev.json). Each question is validated.
func Load(path string) ([]Question, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", kgmem.ErrNotFound, err)
	}
	if st.IsDir() {
		file := filepath.Join(path, DefaultFile)
		if _, err := os.Stat(file); err != nil {
			plain := strings.TrimSuffix(file, ".gz")
			if _, err2 := os.Stat(plain); err2 != nil {
				return nil, fmt.Errorf("%w: neither %s nor %s in %s", kgmem.ErrNotFound, DefaultFile, filepath.Base(plain), path)
			}
			file = plain
		}
		path = file
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", kgmem.ErrNotFound, err)
	}
	defer f.Close()
	qs, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return qs, nil
}

// Read decodes the questions from r, gzip-compressed or not, and validates them.
func Read(r io.Reader) ([]Question, error) {
	br := bufio.NewReader(r)
	var in io.Reader = br
	if magic, err := br.Peek(2); err == nil && bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gunzip: %w", err)
		}
		defer zr.Close()
		in = zr
	}
	var qs []Question
	if err := json.NewDecoder(in).Decode(&qs); err != nil {
		return nil, fmt.Errorf("%w: decode questions: %v", kgmem.ErrInvalid, err)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%w: no questions", kgmem.ErrInvalid)
	}
	seen := make(map[string]bool, len(qs))
	var errs []error
	for i, q := range qs {
		if seen[q.ID] {
			errs = append(errs, fmt.Errorf("question %d: id %q repeated", i, q.ID))
		}
		seen[q.ID] = true
		if err := q.validate(); err != nil {
			errs = append(errs, fmt.Errorf("question %d (%s): %w", i, q.ID, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%w: %w", kgmem.ErrInvalid, err)
	}
	return qs, nil
}

func (q Question) validate() error {
	if q.ID == "" || q.Type == "" || strings.TrimSpace(q.Question) == "" {
		return errors.New("question_id, question_type and question are required")
	}
	if len(q.SessionIDs) != len(q.Sessions) || len(q.SessionDates) != len(q.Sessions) {
		return fmt.Errorf("%d sessions, %d session ids and %d dates: they must be parallel", len(q.Sessions), len(q.SessionIDs), len(q.SessionDates))
	}
	for i, d := range q.SessionDates {
		if _, err := ParseDate(d); err != nil {
			return fmt.Errorf("haystack_dates[%d]: %w", i, err)
		}
	}
	for i, id := range q.SessionIDs {
		if id == "" || strings.Contains(id, ":") {
			return fmt.Errorf("haystack_session_ids[%d] %q: must be non-empty, without ':'", i, id)
		}
	}
	for i, s := range q.Sessions {
		for j, t := range s {
			if t.Role != "user" && t.Role != "assistant" {
				return fmt.Errorf("haystack_sessions[%d][%d]: role %q is neither user nor assistant", i, j, t.Role)
			}
		}
	}
	return nil
}
