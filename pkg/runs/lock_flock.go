//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package runs

import (
	"errors"
	"os"
	"syscall"
)

// lock takes an exclusive flock(2) on path, creating it, and writes the
// process id into it. The kernel releases the lock when the process dies,
// so a killed run never leaves a stale lock behind. The file itself stays:
// removing it would let two writers lock different inodes.
func lock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	if err := writePID(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// unlock releases the lock taken by lock.
func unlock(f *os.File, path string) error {
	return f.Close() // closing the last descriptor releases the flock
}
