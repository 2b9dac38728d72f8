// Package atomicfile writes files that readers see whole or not at all.
//
// Write and WriteFile write into a temporary file in the target's directory,
// sync it, and rename it over the target, so that a crash or an error midway
// leaves the old file (or none) and never a half-written one. The temporary
// file is hidden (".NAME.tmp-*") and removed on error.
//
// Use WriteFile for bytes at hand and Write to stream:
//
//	err := atomicfile.Write(path, func(w io.Writer) error {
//		_, err := table.WriteTo(w)
//		return err
//	})
//
// The directory must exist; the file gets mode 0644. Errors name path and
// keep the underlying error for errors.Is and errors.As.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write replaces the file at path by what write writes.
func Write(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	err = write(f)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// WriteFile replaces the file at path by data.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// syncDir makes the rename in dir durable where the platform allows it;
// failures are ignored (the file itself is already synced).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
