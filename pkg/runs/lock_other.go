//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// lock creates path exclusively and writes the process id into it. Unlike
// flock, this lock survives a killed process: remove the file by hand once
// sure that its holder is gone.
func lock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, errLocked
	}
	if err != nil {
		return nil, err
	}
	if err := writePID(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return f, nil
}

// unlock releases the lock taken by lock.
func unlock(f *os.File, path string) error {
	err := f.Close()
	if err2 := os.Remove(path); err == nil {
		err = err2
	}
	return err
}

// lockData locks the record file path of a single-file store with the lock
// file path+".lock".
func lockData(path string) (f *os.File, lockPath string, created bool, err error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, "", false, fmt.Errorf("%s is not a regular file", path)
	}
	f, err = lock(path + ".lock")
	return f, path + ".lock", false, err
}

// unlockData releases a lock taken by lockData.
func unlockData(f *os.File, lockPath string, created bool) error { return unlock(f, lockPath) }

// holdWriting does nothing here: a writer of the store holds its lock
// file while it appends, which busy sees.
func holdWriting(dir string) (*os.File, error) { return nil, nil }

// busy reports whether the store's lock file exists: it does only while a
// writer holds it (or after one was killed).
func busy(dir string) (bool, error) {
	_, err := os.Stat(filepath.Join(dir, lockName))
	return err == nil, nil
}

// exclusive does nothing here: holdWriting takes no lock, and the store's
// lock file, which Compact holds, keeps every other writer out.
func exclusive(f *os.File, dir string) error { return nil }

// shared does nothing here.
func shared(f *os.File) {}
