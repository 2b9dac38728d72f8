package authors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gasplab/gasp/pkg/jsontext"
)

// sample is one sample S of a log file.
type sample struct {
	Tokens   []string `json:"tokens"`
	TokenIDs []int    `json:"token_ids"`
	LogP     logProb  `json:"raw_logprob"`
	LogPGCD  logProb  `json:"cons_logprob"`
}

// logProb is a log-probability field: null (Python's -Infinity, rewritten)
// is −∞; set tells a missing field apart.
type logProb struct {
	v   float64
	set bool
}

func (l *logProb) UnmarshalJSON(b []byte) error {
	l.set, l.v = true, math.Inf(-1)
	if string(b) == "null" {
		return nil
	}
	// A type error's offset is within b: decode locates it in the file.
	return json.Unmarshal(b, &l.v)
}

// logProbKeys are the fields of type logProb.
var logProbKeys = map[string]bool{"raw_logprob": true, "cons_logprob": true}

// badLogProbOffset returns the offset in b of the first value of a
// logProb field that is neither a number in range nor null (the one
// encoding/json stopped at), or −1.
func badLogProbOffset(b []byte) int64 {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type frame struct{ object, wantKey bool }
	var open []frame // the containers open, innermost last
	key := ""        // the key of the value read next, in an object
	for {
		at := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return -1
		}
		d, delim := tok.(json.Delim)
		if delim && (d == '}' || d == ']') {
			open = open[:len(open)-1]
		} else if n := len(open); n > 0 && open[n-1].wantKey {
			key, open[n-1].wantKey = tok.(string), false
			continue
		} else if n > 0 && open[n-1].object && logProbKeys[key] && !validLogProb(tok) {
			return valueStart(b, at)
		} else if delim {
			open = append(open, frame{object: d == '{', wantKey: d == '{'})
			continue
		}
		// A value ended: an object's next token is a key.
		if n := len(open); n > 0 && open[n-1].object {
			open[n-1].wantKey = true
		}
	}
}

// cutLast is strings.Cut at the last sep; after is all of s without one.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return "", s, false
}

// validLogProb reports whether a token is a logProb's value: null or a
// number in range.
func validLogProb(tok json.Token) bool {
	switch v := tok.(type) {
	case nil:
		return true
	case json.Number:
		_, err := v.Float64()
		return err == nil
	}
	return false
}

// valueStart skips, from offset at in b (just past a key), the blanks and
// the colon before the value.
func valueStart(b []byte, at int64) int64 {
	for at < int64(len(b)) && bytes.IndexByte([]byte(" \t\r\n:"), b[at]) >= 0 {
		at++
	}
	return at
}

// mcmcStep is one step of an MCMC file.
type mcmcStep struct {
	Current  *sample `json:"current"`
	Proposal *sample `json:"proposal"`
	Accepted *bool   `json:"accepted"`
}

var errPython = errors.New("NaN or Infinity (only -Infinity, a zero probability, is allowed)")

// standardJSON rewrites Python's -Infinity outside strings as null padded
// with spaces to the same length (so that offsets stay those of b), and
// reports NaN and Infinity with their offset.
func standardJSON(b []byte) ([]byte, error) {
	var out bytes.Buffer
	var s jsontext.Strings
	for i := 0; i < len(b); i++ {
		c := b[i]
		if s.Outside(c) {
			switch {
			case bytes.HasPrefix(b[i:], []byte("-Infinity")):
				out.WriteString("null     ")
				i += len("-Infinity") - 1
				continue
			case bytes.HasPrefix(b[i:], []byte("Infinity")), bytes.HasPrefix(b[i:], []byte("NaN")):
				return nil, &syntaxError{offset: int64(i), err: errPython}
			}
		}
		out.WriteByte(c)
	}
	return out.Bytes(), nil
}

type syntaxError struct {
	offset int64
	err    error
}

func (e *syntaxError) Error() string { return e.err.Error() }

// position returns the 1-based line and column of byte offset off in b.
func position(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	line = 1 + bytes.Count(b[:off], []byte("\n"))
	col = int(off) - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

// decode parses a log file into v, with errors located by line and column.
func decode(b []byte, v any) error {
	std, err := standardJSON(b)
	if err == nil {
		err = json.Unmarshal(std, v)
	}
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var pe *syntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		off = pe.offset
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if _, field, _ := cutLast(te.Field, "."); logProbKeys[field] {
			off = badLogProbOffset(std)
		}
	}
	if off < 0 {
		return err
	}
	line, col := position(b, off)
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// check reports what a sample lacks.
func (s *sample) check() error {
	switch {
	case s == nil:
		return errors.New("missing sample")
	case s.TokenIDs == nil:
		return errors.New("missing token_ids")
	case len(s.Tokens) != len(s.TokenIDs):
		return fmt.Errorf("%d tokens but %d token_ids", len(s.Tokens), len(s.TokenIDs))
	case !s.LogP.set:
		return errors.New("missing raw_logprob")
	case !s.LogPGCD.set:
		return errors.New("missing cons_logprob")
	case math.IsNaN(s.LogP.v) || math.IsInf(s.LogP.v, 1) || s.LogP.v > 1e-9:
		return fmt.Errorf("raw_logprob %v is not a log-probability", s.LogP.v)
	case math.IsNaN(s.LogPGCD.v) || math.IsInf(s.LogPGCD.v, 1) || s.LogPGCD.v > 1e-9:
		return fmt.Errorf("cons_logprob %v is not a log-probability", s.LogPGCD.v)
	}
	for _, id := range s.TokenIDs {
		if id < 0 {
			return fmt.Errorf("token id %d", id)
		}
	}
	return nil
}
