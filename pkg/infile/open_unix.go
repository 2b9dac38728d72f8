//go:build unix

package infile

import (
	"os"
	"syscall"
)

// openNonblocking opens path read-only without blocking: opening a FIFO
// that no one writes returns at once (and Open then refuses it). The flag
// changes nothing for a regular file.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
