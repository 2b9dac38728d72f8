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

// lockDir takes an exclusive flock(2) on the directory dir, which an
// import holds on its temporary directory while it writes: the kernel
// releases it when the process dies, so a directory nobody holds was left
// by an import that did not finish.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
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
	return func() { f.Close() }, nil
}
