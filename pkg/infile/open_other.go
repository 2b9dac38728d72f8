//go:build !unix

package infile

import "os"

// openNonblocking opens path read-only. Where there are no FIFOs to block
// on, the Stat that Open makes first is enough.
func openNonblocking(path string) (*os.File, error) {
	return os.Open(path)
}
