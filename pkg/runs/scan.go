package runs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/gasplab/gasp/pkg/infile"
)

// scanResult is what scan learns about a file.
type scanResult struct {
	good   int64    // length of the prefix of complete, valid lines
	lines  int      // number of those lines
	torn   *Warning // the dropped last line, if any
	prompt []int    // prompt_ids of the last good record (nil if none)
}

// scan reads the JSONL file at path, calling fn for every complete record
// in order, and checks that each belongs to (task, method) and passes
// checker. A torn last line (no newline at its end, the start of a record:
// what a process killed mid-write leaves) is reported in the result, not as
// an error; any other bad line, the last included, is a *CorruptError. A record without prompt_ids gets those of the record
// before it (they share the slice); in a schema ≥ 2 record with no record
// before it, that is corruption. limit > 0 stops reading at that byte offset (a writable
// store's known good length). A missing file is empty. A record of other
// settings than the store's (settings) is a *SettingsError.
func scan(path, task, method string, limit int64, settings *settingsRule, fn func(Record) error) (scanResult, error) {
	var res scanResult
	f, err := infile.Open(path, infile.Any) // a store's files are streamed, whatever their size
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	defer f.Close()
	var src io.Reader = f
	if limit > 0 {
		src = io.LimitReader(f, limit)
	}
	br := bufio.NewReaderSize(src, 1<<16)
	var chk checker
	for lineNum := 1; ; lineNum++ {
		line, rerr := readRecordLine(br)
		if errors.Is(rerr, errLongLine) {
			return res, &CorruptError{File: path, Line: lineNum, Err: rerr}
		}
		if rerr != nil && rerr != io.EOF {
			return res, fmt.Errorf("runs: reading %s: %w", path, rerr)
		}
		if len(line) == 0 { // end of file
			return res, nil
		}
		if line[len(line)-1] != '\n' { // torn: the process died mid-write
			if !tornRecord(line) {
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
		if r.Task != task || r.Method != method {
			return res, &CorruptError{File: path, Line: lineNum,
				Err: fmt.Errorf("record of task %q, method %q in the file of task %q, method %q", r.Task, r.Method, task, method)}
		}
		if r.Schema < 1 || r.Schema > Schema {
			return res, &CorruptError{File: path, Line: lineNum,
				Err: fmt.Errorf("schema version %d; this reader knows 1…%d", r.Schema, Schema)}
		}
		switch {
		case hasPrompt:
			res.prompt = r.PromptIDs
		case res.lines > 0:
			r.PromptIDs = res.prompt
		case r.Schema >= 2:
			return res, &CorruptError{File: path, Line: lineNum, Err: errors.New("no prompt_ids, and no record before it to take them from")}
		}
		if err := chk.add(&r, lineNum); err != nil {
			return res, &CorruptError{File: path, Line: lineNum, Err: err}
		}
		if err := settings.check(&r, path, lineNum); err != nil {
			return res, err
		}
		if fn != nil {
			if err := fn(r); err != nil {
				return res, err
			}
		}
		res.good += int64(len(line))
		res.lines++
	}
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
