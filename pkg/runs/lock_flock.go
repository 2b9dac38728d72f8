//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package runs

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lock takes an exclusive flock(2) on path, creating it, and writes the
// process id into it. The kernel releases the lock when the process dies,
// so a killed run never leaves a stale lock behind. The file itself stays:
// removing it would let two writers lock different inodes. A file at path
// that is not a lock file (a non-empty file holding anything but a process
// id) is left alone and is an error.
func lock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := checkLockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		return nil, err
	}
	if err := writePID(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// lockData locks the record file path of a single-file store: an exclusive
// flock(2) on the file itself, created if needed (created tells), so that
// no lock file is left beside it. The lock is on the inode that path names
// once locked: a file removed and recreated meanwhile is locked anew.
func lockData(path string) (f *os.File, lockPath string, created bool, err error) {
	for try := 0; try < 10; try++ {
		fi0, statErr := os.Lstat(path)
		if statErr == nil && !fi0.Mode().IsRegular() {
			return nil, "", false, fmt.Errorf("%s is not a regular file", path)
		}
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, "", false, err
		}
		if err = flock(f); err != nil {
			f.Close()
			return nil, path, false, err
		}
		fi, err1 := f.Stat()
		fi2, err2 := os.Lstat(path)
		if err1 == nil && err2 == nil && os.SameFile(fi, fi2) {
			return f, path, statErr != nil, nil
		}
		f.Close()
	}
	return nil, "", false, fmt.Errorf("%s keeps being replaced while locking it", path)
}

// unlockData releases a lock taken by lockData, first removing the file
// when lockData created it and nothing was written to it.
func unlockData(f *os.File, path string, created bool) error {
	if created {
		if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
			os.Remove(path) // still locked: no other writer is using it
		}
	}
	return f.Close()
}

func flock(f *os.File) error {
	var err error
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// unlock releases the lock taken by lock.
func unlock(f *os.File, path string) error {
	return f.Close() // closing the last descriptor releases the flock
}

// holdWriting takes a shared flock(2) on the directory dir itself, held
// until the returned file is closed. Writers share it; Busy's exclusive
// probe cannot take it while one holds it. It waits for such a probe,
// which holds its lock for a moment only.
func holdWriting(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("runs: locking %s for writing: %w", dir, err)
	}
	return f, nil
}

// busy reports whether a writer holds dir (holdWriting).
func busy(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, fmt.Errorf("runs: %w", err)
	}
	defer f.Close() // releases the probe's lock
	switch err := flock(f); {
	case err == errLocked:
		return true, nil
	case err != nil:
		return false, fmt.Errorf("runs: probing %s for writers: %w", dir, err)
	}
	return false, nil
}

// exclusive turns the writing lock f of the store dir (holdWriting) into
// an exclusive one, failing with ErrBusy if another writer holds it too.
// flock(2) may drop the shared lock on the way; shared takes it back.
func exclusive(f *os.File, dir string) error {
	if f == nil {
		return nil
	}
	switch err := flock(f); {
	case err == errLocked:
		shared(f)
		return fmt.Errorf("%w: %s (a shard of gasp experiment run between appends?); try again once it has ended", ErrBusy, dir)
	case err != nil:
		shared(f)
		return fmt.Errorf("runs: locking %s: %w", dir, err)
	}
	return nil
}

// shared turns the writing lock f back into a shared one.
func shared(f *os.File) {
	if f == nil {
		return
	}
	for {
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); !errors.Is(err, syscall.EINTR) {
			return
		}
	}
}
