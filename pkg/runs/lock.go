package runs

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// checkLockFile fails when f, opened at a lock file's path, is a file that
// is not one: a lock file is empty or holds a process id (writePID).
func checkLockFile(f *os.File) error {
	b, err := io.ReadAll(io.LimitReader(f, 64))
	if err != nil {
		return err
	}
	if s := strings.TrimSpace(string(b)); s != "" {
		if _, err := strconv.Atoi(s); err != nil || len(b) == 64 {
			return fmt.Errorf("%s exists and is not a lock file of gasp (it holds more than a process id); not overwriting it", f.Name())
		}
	}
	return nil
}

// Writing marks the store dir as being written until the returned Closer
// is closed: for a writer that, like experiment.Run, opens the store (Open)
// only while it appends, so that Busy sees it between appends too. A
// store opened for appending is marked while it is open.
func Writing(dir string) (io.Closer, error) {
	f, err := holdWriting(dir)
	if err != nil || f == nil {
		return nopCloser{}, err
	}
	return f, nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// Busy reports whether a writer holds the store dir (Open, Writing): a
// reader then sees part of what the store will hold, and an analysis of
// it would report partial results as if final.
func Busy(dir string) (bool, error) { return busy(dir) }
