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
