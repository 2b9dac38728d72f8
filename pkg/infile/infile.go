// Package infile opens and reads the files gasp is given: a flag's file,
// or a file inside a directory it is given (a model's config.json, a
// task's grammar, a store's records, a log, a trie). It is the one place
// that refuses what is not a regular file (a directory, a device such as
// /dev/zero, a FIFO, a socket) and a file larger than the caller's limit,
// before a byte is read, with the path in the error:
//
//	b, err := infile.Read(path, 16<<20)
//	// "/tmp/m/config.json: is not a regular file"
//	// "/tmp/runs_log/t/rs-1/big.json: has 6442450944 bytes; at most 268435456 are read"
//
// A FIFO or device is never opened for reading in the ordinary (blocking)
// way: opening a FIFO that no one writes would block forever. The file is
// checked with Stat first and, once open (without blocking), again with
// the open file's Stat, so that a file replaced between the two cannot
// slip through.
package infile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
)

// Any is the limit of a caller that bounds the size itself, after Open
// (a safetensors file, whose header says how large it must be).
const Any = math.MaxInt64

// The problems Error reports, for errors.Is.
var (
	ErrDir        = errors.New("is a directory, not a file")
	ErrNotRegular = errors.New("is not a regular file")
	ErrTooLarge   = errors.New("is too large")
)

// Error is a file refused or not read: its path and why. Err is one of
// the problems above (wrapped in a *SizeError for ErrTooLarge) or what
// the system said (syscall.ENOENT for a missing file: errors.Is(err,
// fs.ErrNotExist) holds).
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// SizeError is a file larger than the limit. Size is -1 for a file that
// grew beyond it while it was read.
type SizeError struct {
	Size, Limit int64
}

func (e *SizeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("has more than %d bytes; at most %d are read", e.Limit, e.Limit)
	}
	return fmt.Sprintf("has %d bytes; at most %d are read", e.Size, e.Limit)
}

func (e *SizeError) Is(target error) bool { return target == ErrTooLarge }

// Check returns an *Error unless path is a regular file (or a symbolic
// link to one) of at most limit bytes. It opens nothing.
func Check(path string, limit int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return &Error{path, unwrapPath(err)}
	}
	if err := problem(fi, limit); err != nil {
		return &Error{path, err}
	}
	return nil
}

// Open opens path for reading if Check accepts it, and checks the open
// file again: what is returned is a regular file of at most limit bytes.
func Open(path string, limit int64) (*os.File, error) {
	if err := Check(path, limit); err != nil {
		return nil, err
	}
	f, err := openNonblocking(path)
	if err != nil {
		return nil, &Error{path, unwrapPath(err)}
	}
	fi, err := f.Stat()
	if err == nil {
		err = problem(fi, limit)
	}
	if err != nil {
		f.Close()
		return nil, &Error{path, unwrapPath(err)}
	}
	return f, nil
}

// Read returns the contents of the file Open accepts. A file that grows
// beyond limit while it is read is refused too.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{path, unwrapPath(err)}
	}
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()) + 1) // a hint: the file may change as it is read
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+min(1, math.MaxInt64-limit))); err != nil {
		return nil, &Error{path, unwrapPath(err)}
	}
	if int64(buf.Len()) > limit {
		return nil, &Error{path, &SizeError{-1, limit}}
	}
	return buf.Bytes(), nil
}

// problem says why fi is not a regular file of at most limit bytes.
func problem(fi fs.FileInfo, limit int64) error {
	switch {
	case fi.IsDir():
		return ErrDir
	case !fi.Mode().IsRegular():
		return ErrNotRegular
	case fi.Size() > limit:
		return &SizeError{fi.Size(), limit}
	}
	return nil
}

// unwrapPath drops the *fs.PathError wrapper, whose path Error already
// names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
