//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package authors

import (
	"errors"
	"os"
	"syscall"
)

// canLockDir tells that lockDir can tell a live import's temporary
// directory from a killed one's.
const canLockDir = true

// errLocked is lockDir's error for a directory another process holds.
var errLocked = errors.New("locked by another process")

// lockDir takes an exclusive flock(2) on the directory dir, without
// waiting: it fails with errLocked while an import holds the directory
// (holdDir). The kernel releases a lock when its process dies, so a
// temporary directory nobody holds was left by an import that did not
// finish.
func lockDir(dir string) (unlock func(), err error) { return flockDir(dir, syscall.LOCK_EX) }

// holdDir takes a shared flock(2) on dir, as an import does on its
// temporary directory while it writes: shared, so that the run store's own
// writer lock on the same directory (pkg/runs, also shared) can be taken
// inside it.
func holdDir(dir string) (unlock func(), err error) { return flockDir(dir, syscall.LOCK_SH) }

func flockDir(dir string, how int) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
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
	return func() { f.Close() }, nil
}
