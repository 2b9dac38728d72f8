//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package authors

import "errors"

// canLockDir tells that lockDir cannot tell a live import's temporary
// directory from a killed one's here: Import reports them instead.
const canLockDir = false

var errLocked = errors.New("maybe in use by another import")

func lockDir(string) (func(), error) { return nil, errLocked }

func holdDir(string) (func(), error) { return nil, errLocked }
