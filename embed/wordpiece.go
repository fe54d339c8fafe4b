package embed

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// WordPiece is BERT's uncased tokenizer: the BertNormalizer (control
// characters dropped, whitespace unified, CJK ideographs spaced, accents
// stripped, lower case), the BertPreTokenizer (split on whitespace and around
// every punctuation character) and the greedy longest-match-first WordPiece
// model with the "##" continuation prefix. It reproduces Hugging Face
// tokenizers' output for a BERT uncased tokenizer.json (tested against it in
// testdata/wordpiece_reference.json). It is safe for concurrent use.
type WordPiece struct {
	// starts maps a token that begins a word to its id; conts maps the rest
	// of a "##" continuation token to its id.
	starts, conts map[string]int32
	unk           int32
	maxChars      int
}

// maxInputCharsPerWord is BERT's limit: a longer word becomes [UNK].
const maxInputCharsPerWord = 100

// NewWordPiece reads a vocabulary, one token a line, the line number being
// the token's id, as in BERT's vocab.txt. unk is the unknown token
// ("[UNK]"), which the vocabulary must hold.
func NewWordPiece(vocab io.Reader, unk string) (*WordPiece, error) {
	w := &WordPiece{starts: map[string]int32{}, conts: map[string]int32{}, unk: -1, maxChars: maxInputCharsPerWord}
	sc := bufio.NewScanner(vocab)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var id int32
	for ; sc.Scan(); id++ {
		tok := strings.TrimRight(sc.Text(), "\r")
		if tok == unk {
			w.unk = id
		}
		if rest, ok := strings.CutPrefix(tok, "##"); ok && rest != "" {
			if _, dup := w.conts[rest]; !dup {
				w.conts[rest] = id
			}
			continue
		}
		if _, dup := w.starts[tok]; !dup {
			w.starts[tok] = id
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read vocabulary: %w", err)
	}
	if w.unk < 0 {
		return nil, fmt.Errorf("vocabulary of %d tokens has no unknown token %q", id, unk)
	}
	return w, nil
}

// Unknown is the id of the unknown token.
func (w *WordPiece) Unknown() int32 { return w.unk }

// Tokenize appends the ids of text's tokens to dst and returns it. Special
// tokens ([CLS], [SEP]) are not added, and text that spells one is
// tokenized as ordinary text.
func (w *WordPiece) Tokenize(dst []int32, text string) []int32 {
	buf := make([]byte, 0, 64)
	flush := func() {
		if len(buf) > 0 {
			dst = w.word(dst, buf)
			buf = buf[:0]
		}
	}
	each := func(r rune) {
		switch {
		case isBertWhitespace(r):
			flush()
		case isBertPunct(r) || isCJK(r):
			// A punctuation mark or CJK ideograph is a word of its own
			// (BertNormalizer spaces ideographs, BertPreTokenizer isolates
			// punctuation).
			flush()
			buf = utf8.AppendRune(buf, r)
			flush()
		default:
			buf = utf8.AppendRune(buf, r)
		}
	}
	normalize(text, each)
	flush()
	return dst
}

// normalize runs BertNormalizer over text (clean text, strip accents, lower
// case) and calls emit with each resulting rune; whitespace comes out as ' '.
func normalize(text string, emit func(rune)) {
	ascii := true
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		for i := 0; i < len(text); i++ {
			c := rune(text[i])
			switch {
			case c == 0 || isBertControl(c):
			case isBertWhitespace(c):
				emit(' ')
			default:
				emit(unicode.ToLower(c))
			}
		}
		return
	}
	// Clean first (dropping controls, U+FFFD and NUL; whitespace to ' '),
	// then decompose and drop non-spacing marks, then lower-case: the order
	// of tokenizers' BertNormalizer.
	var clean strings.Builder
	clean.Grow(len(text))
	for _, c := range text {
		switch {
		case c == 0 || c == utf8.RuneError || isBertControl(c):
		case isBertWhitespace(c):
			clean.WriteByte(' ')
		default:
			clean.WriteRune(c)
		}
	}
	var it norm.Iter
	it.InitString(norm.NFD, clean.String())
	for !it.Done() {
		seg := it.Next()
		for len(seg) > 0 {
			c, n := utf8.DecodeRune(seg)
			seg = seg[n:]
			if unicode.Is(unicode.Mn, c) {
				continue
			}
			emit(unicode.ToLower(c))
		}
	}
}

// word appends the WordPiece ids of one pre-tokenized word.
func (w *WordPiece) word(dst []int32, word []byte) []int32 {
	if utf8.RuneCount(word) > w.maxChars {
		return append(dst, w.unk)
	}
	start := len(dst)
	for pos := 0; pos < len(word); {
		end := len(word)
		var id int32 = -1
		for end > pos {
			var ok bool
			if pos == 0 {
				id, ok = w.starts[string(word[pos:end])]
			} else {
				id, ok = w.conts[string(word[pos:end])]
			}
			if ok {
				break
			}
			id = -1
			// Step back one rune, never inside one.
			_, n := utf8.DecodeLastRune(word[pos:end])
			end -= n
		}
		if id < 0 { // some piece is not in the vocabulary: the whole word is unknown
			return append(dst[:start], w.unk)
		}
		dst = append(dst, id)
		pos = end
	}
	return dst
}

// isBertWhitespace is tokenizers' is_whitespace: tab, newline, carriage
// return, space, and Unicode White_Space.
func isBertWhitespace(c rune) bool {
	if c < utf8.RuneSelf {
		return c == ' ' || (c >= '\t' && c <= '\r')
	}
	return unicode.Is(unicode.White_Space, c)
}

// isBertControl is tokenizers' is_control: a character of a C* general
// category other than tab, newline and carriage return.
func isBertControl(c rune) bool {
	if c == '\t' || c == '\n' || c == '\r' {
		return false
	}
	if c < utf8.RuneSelf {
		return c < ' ' || c == 0x7f
	}
	return unicode.In(c, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) || !unicode.In(c, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C)
}

// isBertPunct is tokenizers' is_bert_punc: ASCII punctuation (which
// includes symbols such as $ + < = > ^ ` | ~) or a Unicode P* character.
func isBertPunct(c rune) bool {
	if c < utf8.RuneSelf {
		return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~')
	}
	return unicode.IsPunct(c)
}

// isCJK reports a CJK Unified Ideograph, which BertNormalizer surrounds
// with spaces.
func isCJK(c rune) bool {
	return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
		(c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
		(c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
		(c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F)
}
