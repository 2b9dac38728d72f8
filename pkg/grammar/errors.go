package grammar

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in grammar source text. Line and Col are 1-based; Col
// counts bytes. A Pos with Line 0 is unknown.
type Pos struct {
	Filename string
	Offset   int // byte offset, 0-based
	Line     int
	Col      int
}

// IsValid reports whether the position is known.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String formats the position as file:line:col (parts that are unknown are left out).
func (p Pos) String() string {
	s := p.Filename
	if p.IsValid() {
		if s != "" {
			s += ":"
		}
		s += fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	if s == "" {
		s = "-"
	}
	return s
}

// Error is a problem at a position in grammar source: an error, or a warning
// when it is returned in a warning list.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is a list of errors or warnings, sortable by position, in the
// manner of go/scanner.ErrorList. A non-empty ErrorList is itself an error.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos Pos, msg string) { *l = append(*l, &Error{pos, msg}) }

// Addf appends a formatted error at pos.
func (l *ErrorList) Addf(pos Pos, format string, args ...any) {
	l.Add(pos, fmt.Sprintf(format, args...))
}

// Sort sorts the list by file, line and column.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Error joins the messages, one per line.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns the list as an error, or nil if it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
