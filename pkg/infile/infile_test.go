//go:build unix

package infile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// files makes, in a new directory, one file of every kind Read meets.
func files(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ok", "hello")
	write("sparse", "")
	// 6 GiB that cost no disk: Read must refuse it from its size alone.
	if err := os.Truncate(filepath.Join(dir, "sparse"), 6<<30); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"zero": "/dev/zero", "link": "ok", "dangling": "none"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS != "windows" {
		if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRead(t *testing.T) {
	dir := files(t)
	for name, want := range map[string]string{
		"dir":      "/dir: is a directory, not a file",
		"zero":     "/zero: is not a regular file",
		"fifo":     "/fifo: is not a regular file",
		"sparse":   "/sparse: has 6442450944 bytes; at most 16 are read",
		"none":     "/none: no such file or directory",
		"dangling": "/dangling: no such file or directory",
	} {
		path := filepath.Join(dir, name)
		done := make(chan error, 1)
		go func() {
			_, err := Read(path, 16)
			done <- err
		}()
		select {
		case err := <-done:
			var e *Error
			if !errors.As(err, &e) || e.Path != path || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("Read(%s): %v, want an *Error ending %q", name, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Read(%s) blocked", name)
		}
	}
	for name, want := range map[string]string{"ok": "hello", "link": "hello"} {
		b, err := Read(filepath.Join(dir, name), 5)
		if err != nil || string(b) != want {
			t.Errorf("Read(%s) = %q, %v", name, b, err)
		}
	}
	if _, err := Read(filepath.Join(dir, "ok"), 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read of 5 bytes, limit 4: %v", err)
	}
	if b, err := Read(filepath.Join(dir, "ok"), Any); err != nil || string(b) != "hello" {
		t.Errorf("Read(ok, Any) = %q, %v", b, err)
	}
	if _, err := Read(filepath.Join(dir, "none"), 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read(none): %v is not fs.ErrNotExist", err)
	}
	if _, err := Read(filepath.Join(dir, "zero"), 1); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Read(zero): %v is not ErrNotRegular", err)
	}
}

// Open accepts a file of any size under Any, and refuses what Read refuses
// without opening it for reading.
func TestOpen(t *testing.T) {
	dir := files(t)
	f, err := Open(filepath.Join(dir, "sparse"), Any)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, name := range []string{"zero", "fifo", "dir"} {
		if f, err := Open(filepath.Join(dir, name), Any); err == nil {
			f.Close()
			t.Errorf("Open(%s) accepted it", name)
		}
	}
}

// A FIFO that replaces a file after the Stat is refused by the open
// file's Stat, without blocking.
func TestOpenSwapped(t *testing.T) {
	dir := files(t)
	f, err := openNonblocking(filepath.Join(dir, "fifo"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := problem(fi, Any); !errors.Is(err, ErrNotRegular) {
		t.Errorf("the open FIFO: %v", err)
	}
}
