// Package modroot finds the gasp module's directory, the checkout whose
// data/ holds the tasks and the embedded model, from any working
// directory; it is the one place that walks up to a go.mod.
//
// Find looks, in order, at:
//
//  1. the directory the environment variable GASP_ROOT names (for a
//     program outside the module, or a binary run elsewhere);
//  2. the working directory and its parents, up to the nearest directory
//     whose go.mod declares module github.com/gasplab/gasp;
//  3. the directory this package was compiled from, when it is still
//     there (a program that imports gasp through a replace directive or
//     the module cache, run from anywhere).
//
// A GASP_ROOT that is not a gasp checkout is an error, not skipped: a
// variable that is set but wrong should not silently lose to another copy.
package modroot

import (
	"bufio"
	"bytes"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Env is the environment variable that names the gasp module's directory.
const Env = "GASP_ROOT"

// Module is the module path gasp's go.mod declares.
const Module = "github.com/gasplab/gasp"

// Find returns the gasp module's directory, absolute (see the package doc
// for where it looks).
func Find() (string, error) {
	if v := os.Getenv(Env); v != "" {
		abs, err := filepath.Abs(v)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", Env, v, err)
		}
		if !Is(abs) {
			return "", fmt.Errorf("%s=%s: no go.mod of module %s there", Env, v, Module)
		}
		return abs, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := range Up(wd) {
		if Is(d) {
			return d, nil
		}
	}
	if d, ok := source(); ok {
		return d, nil
	}
	return "", fmt.Errorf("the gasp module (go.mod of %s) is neither at or above %s nor where gasp was compiled from; set %s to a gasp checkout", Module, wd, Env)
}

// Path returns rel, slash-separated relative to the gasp module's
// directory ("data/models/tiny"), as a path of this system.
func Path(rel string) (string, error) {
	root, err := Find()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}

// Nearest returns the nearest directory at or above dir (made absolute)
// that holds a go.mod of any module, and whether there is one: the module
// a file belongs to.
func Nearest(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for d := range Up(abs) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, true
		}
	}
	return "", false
}

// Is reports whether dir holds the go.mod of the gasp module.
func Is(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := bytes.TrimSpace(s.Bytes())
		if rest, ok := bytes.CutPrefix(line, []byte("module")); ok {
			return strings.Trim(string(bytes.TrimSpace(rest)), `"`) == Module
		}
	}
	return false
}

// Up yields abs, an absolute directory, and its parents, up to the file
// system's root.
func Up(abs string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for d := abs; ; {
			if !yield(d) {
				return
			}
			p := filepath.Dir(d)
			if p == d {
				return
			}
			d = p
		}
	}
}

// source returns the module directory this file was compiled in, if it is
// a gasp checkout that still exists (not with -trimpath).
func source() (string, bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", false
	}
	d := filepath.Dir(filepath.Dir(filepath.Dir(file))) // pkg/modroot/modroot.go
	return d, Is(d)
}
