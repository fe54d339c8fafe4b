package chatlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// lineReader reads lines of at most max bytes; a longer line is skipped whole
// and reported, so one runaway line never loads into memory.
type lineReader struct {
	br   *bufio.Reader
	max  int
	line int
	buf  []byte
}

// errLineTooLong is returned (with the line number set) for a skipped line.
var errLineTooLong = errors.New("line too long")

// next returns the next non-blank line without its newline, its 1-based
// number, and io.EOF at the end.
func (l *lineReader) next() ([]byte, int, error) {
	for {
		l.buf = l.buf[:0]
		tooLong := false
		for {
			frag, err := l.br.ReadSlice('\n')
			if !tooLong {
				if len(l.buf)+len(frag) > l.max+2 { // +2: the \r\n
					tooLong, l.buf = true, l.buf[:0]
				} else {
					l.buf = append(l.buf, frag...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				if len(l.buf) == 0 && !tooLong {
					return nil, l.line, io.EOF
				}
				break
			}
			if err != nil {
				return nil, l.line, fmt.Errorf("read line %d: %w", l.line+1, err)
			}
			break
		}
		l.line++
		if tooLong {
			return nil, l.line, errLineTooLong
		}
		if s := bytes.TrimSpace(l.buf); len(s) > 0 {
			return s, l.line, nil
		}
	}
}
