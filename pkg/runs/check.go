package runs

import (
	"bytes"
	"errors"
	"fmt"
)

// errNotRecord is the error of a last line without a newline that is not
// the start of a record either: not a torn write of this package, so not
// dropped.
var errNotRecord = errors.New("not a run record, nor the torn start of one (a record line begins with {\"schema\":)")

// recordStart is how every line Append writes begins.
const recordStart = `{"schema":`

// tornRecord tells whether line, the unterminated last line of a file,
// can be what a process killed in the middle of Append left: the start of
// a record, or zeros (blocks a crash allocated but never wrote).
func tornRecord(line []byte) bool {
	n := min(len(line), len(recordStart))
	if bytes.Equal(line[:n], []byte(recordStart[:n])) {
		return true
	}
	return len(bytes.Trim(line, "\x00")) == 0
}

// checker rejects, while a series is read, records that no writer of
// this package appends: a record Append would refuse (negative k or run, a
// NaN log probability, ...), and a second record of a (k, run) already
// read, in the same segment or another, which would count one run twice.
type checker struct {
	seen map[Sample]place // sample → where its record is
}

// place is a record's file and line.
type place struct {
	file string
	line int
}

func (c *checker) add(r *Record, file string, line int) error {
	if err := r.check(); err != nil {
		return err
	}
	if c.seen == nil {
		c.seen = map[Sample]place{}
	}
	s := Sample{K: r.K, Run: r.Run}
	if first, ok := c.seen[s]; ok {
		if first.file == file {
			return fmt.Errorf("second record of k %d, run %d (the first is on line %d)", r.K, r.Run, first.line)
		}
		return fmt.Errorf("second record of k %d, run %d (the first is at %s:%d)", r.K, r.Run, first.file, first.line)
	}
	c.seen[s] = place{file, line}
	return nil
}
