package runs

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/gasplab/gasp/pkg/infile"
)

// scanResult is what scan learns about a series.
type scanResult struct {
	good     int64    // length of the open segment's prefix of complete, valid lines
	torn     *Warning // the open segment's dropped last line, if any
	prompt   []int    // prompt_ids of the open segment's last good record (nil if none)
	sealed   bool     // the series has a sealed segment
	leftover bool     // the open segment is one the sealed segment absorbed (compact.go)
}

// scan reads the series of (task, method) whose open segment is the JSONL
// file at path, and whose sealed segment, if any, is path+".gz" (sealed
// is "" for a store of one file, which has none): the sealed records
// first, then the open ones, calling fn for each in order. It checks that
// each belongs to (task, method), passes checker, and that no (k, run)
// comes twice in the series. A torn last line of the open segment (no
// newline at its end, the start of a record: what a process killed
// mid-write leaves) is reported in the result, not as an error; any other
// bad line, the last included, and any fault of the sealed segment's gzip
// stream (truncated, corrupt) is a *CorruptError naming file and line.
// An open segment that the sealed one absorbed (a compaction killed
// between its two steps) is skipped and reported as leftover. limit ≥ 0
// stops reading the open segment at that byte offset (a writable store's
// known good length); < 0 reads it whole. Missing files are empty. A
// record of other settings than the store's (settings) is a
// *SettingsError.
func scan(path, sealed, task, method string, limit int64, settings *settingsRule, fn func(Record) error) (scanResult, error) {
	var res scanResult
	// Open the open segment before the sealed one. A compaction renames
	// its new sealed segment into place before it removes the open
	// segment, so this reads either the old sealed segment and the open
	// one, or the new sealed segment and an open one it absorbed, which
	// absorbed() recognises: never a series without the open records.
	of, err := openSegment(path)
	if err != nil {
		return res, err
	}
	if of != nil {
		defer of.Close()
	}
	var sf *os.File
	if sealed != "" {
		if sf, err = openSegment(sealed); err != nil {
			return res, err
		}
	}
	s := seriesScan{task: task, method: method, fn: fn, settings: settings}
	if sf != nil {
		defer sf.Close()
		res.sealed = true
		zr, err := gzip.NewReader(bufio.NewReaderSize(sf, 1<<16))
		if err != nil {
			return res, &CorruptError{File: sealed, Err: fmt.Errorf("not a gzip stream: %w", err)}
		}
		if of != nil {
			if res.leftover, err = absorbed(zr.Comment, of); err != nil {
				return res, fmt.Errorf("runs: reading %s: %w", path, err)
			}
		}
		if _, err := s.segment(sealed, zr, true); err != nil {
			return res, err
		}
	}
	if of == nil || res.leftover {
		return res, nil
	}
	var src io.Reader = of
	if limit >= 0 {
		src = io.LimitReader(of, limit)
	}
	seg, err := s.segment(path, src, false)
	res.good, res.torn, res.prompt = seg.good, seg.torn, seg.prompt
	return res, err
}

// openSegment opens a segment file for reading; nil if it does not exist.
func openSegment(path string) (*os.File, error) {
	f, err := infile.Open(path, infile.Any) // a store's files are streamed, whatever their size
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return f, err
}

// seriesScan is the state of scan across the segments of one series.
type seriesScan struct {
	task, method string
	fn           func(Record) error
	chk          checker
	settings     *settingsRule
}

// segmentResult is what seriesScan.segment learns about one segment.
type segmentResult struct {
	good   int64
	torn   *Warning
	prompt []int
}

// segment reads the records of one segment, the file path read through
// src. A record without prompt_ids gets those of the record before it in
// the segment (they share the slice); in a schema ≥ 2 record with no
// record before it, that is corruption. A sealed segment has no torn last
// line: it was written whole, so an unterminated one, like a fault of its
// gzip stream, is corruption.
func (s *seriesScan) segment(path string, src io.Reader, sealed bool) (segmentResult, error) {
	var res segmentResult
	br := bufio.NewReaderSize(src, 1<<16)
	lines := 0
	for lineNum := 1; ; lineNum++ {
		line, rerr := readRecordLine(br)
		if errors.Is(rerr, errLongLine) {
			return res, &CorruptError{File: path, Line: lineNum, Err: rerr}
		}
		if rerr != nil && rerr != io.EOF {
			if sealed {
				return res, &CorruptError{File: path, Line: lineNum, Err: gzipError(rerr, res.good)}
			}
			return res, fmt.Errorf("runs: reading %s: %w", path, rerr)
		}
		if len(line) == 0 { // end of file
			return res, nil
		}
		if line[len(line)-1] != '\n' {
			if sealed {
				return res, &CorruptError{File: path, Line: lineNum,
					Err: errors.New("the sealed segment ends inside a record (no newline at its end)")}
			}
			if !tornRecord(line) { // not what a process that died mid-write leaves
				return res, &CorruptError{File: path, Line: lineNum, Err: errNotRecord}
			}
			res.torn = &Warning{File: path, Line: lineNum, Offset: res.good, Dropped: int64(len(line)), Reason: "no newline at end of file"}
			return res, nil
		}
		var r Record
		hasPrompt, err := decodeLine(line, &r)
		if err != nil {
			return res, &CorruptError{File: path, Line: lineNum, Err: err}
		}
		if r.Task != s.task || r.Method != s.method {
			return res, &CorruptError{File: path, Line: lineNum,
				Err: fmt.Errorf("record of task %q, method %q in the file of task %q, method %q", r.Task, r.Method, s.task, s.method)}
		}
		if r.Schema < 1 || r.Schema > Schema {
			return res, &CorruptError{File: path, Line: lineNum,
				Err: fmt.Errorf("schema version %d; this reader knows 1…%d", r.Schema, Schema)}
		}
		switch {
		case hasPrompt:
			res.prompt = r.PromptIDs
		case lines > 0:
			r.PromptIDs = res.prompt
		case r.Schema >= 2:
			return res, &CorruptError{File: path, Line: lineNum, Err: errors.New("no prompt_ids, and no record before it to take them from")}
		}
		if err := s.chk.add(&r, path, lineNum); err != nil {
			return res, &CorruptError{File: path, Line: lineNum, Err: err}
		}
		if err := s.settings.check(&r, path, lineNum); err != nil {
			return res, err
		}
		if s.fn != nil {
			if err := s.fn(r); err != nil {
				return res, err
			}
		}
		res.good += int64(len(line))
		lines++
	}
}

// gzipError describes a fault of a sealed segment's gzip stream found
// after good bytes of complete records.
func gzipError(err error, good int64) error {
	what := "corrupt gzip stream"
	if errors.Is(err, io.ErrUnexpectedEOF) {
		what = "truncated gzip stream"
	}
	return fmt.Errorf("%s after %d bytes of records: %w", what, good, err)
}

// MaxRecordBytes bounds a record's line: a record of a million tokens (the
// most --max-new-tokens allows) has about 20 MB.
const MaxRecordBytes = 256 << 20

var errLongLine = fmt.Errorf("a line of more than %d bytes; a record has less", MaxRecordBytes)

// readRecordLine is br.ReadBytes('\n'), failing with errLongLine as soon
// as the line has more than MaxRecordBytes, before it is read whole.
func readRecordLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > MaxRecordBytes {
			return nil, errLongLine
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// decodeLine parses one line (its newline included) into r and tells
// whether it held prompt_ids.
func decodeLine(line []byte, r *Record) (hasPrompt bool, err error) {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	if len(line) == 0 {
		return false, errors.New("empty line")
	}
	return r.decode(line)
}
