package runs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gasplab/gasp/pkg/infile"
)

// ErrReadOnly is returned by Append on a store opened with OpenReadOnly.
var ErrReadOnly = errors.New("runs: store is read-only")

// ErrExists is returned by Append for a (task, method, k, run) already in the
// store.
var ErrExists = errors.New("runs: sample already stored")

var errLocked = errors.New("locked")

// LockedError reports that another writer holds an experiment.
// errors.Is(err, ErrLocked) holds for it.
type LockedError struct {
	Dir string
	PID int // the holder's process id, 0 if unknown

	lock string // the lock file's name, if not LOCK
}

// ErrLocked matches a *LockedError with errors.Is.
var ErrLocked = errors.New("runs: experiment is locked by another writer")

func (e *LockedError) Error() string {
	holder := "unknown process"
	if e.PID > 0 {
		holder = "pid " + strconv.Itoa(e.PID)
	}
	lock := e.lock
	if lock == "" {
		lock = lockName
	}
	return fmt.Sprintf("runs: %s is in use by another writer (%s holds %s)", e.Dir, holder, lock)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// CorruptError reports a line that is not a record, or not the record its
// file should hold, before the last line of a file. The store refuses to
// skip it: it would silently drop a sample.
type CorruptError struct {
	File string // path of the JSONL file
	Line int    // 1-based line number (of the uncompressed records, in a sealed segment); 0 for the whole file
	Err  error
}

func (e *CorruptError) Error() string {
	if e.Line == 0 { // the file as a whole: a sealed segment's gzip header
		return fmt.Sprintf("%s: corrupt run records: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s:%d: corrupt run record: %v", e.File, e.Line, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Warning reports a torn last line: one without its newline, or one that
// does not parse. It is what a run killed while appending leaves behind,
// and it is dropped: readers skip it, and a writable store truncates the
// file to the end of the last good line before appending to it.
type Warning struct {
	File    string // path of the JSONL file
	Line    int    // 1-based line number of the torn line
	Offset  int64  // byte offset where it starts (the file's good length)
	Dropped int64  // its length in bytes
	Reason  string // "no newline at end of file" or the parse error
}

func (w Warning) String() string {
	return fmt.Sprintf("%s:%d: dropped torn last line (%d bytes at offset %d): %s",
		w.File, w.Line, w.Dropped, w.Offset, w.Reason)
}

func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

func readPID(path string) int {
	b, err := infile.Read(path, 4<<10) // a process id
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}
