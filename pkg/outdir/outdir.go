// Package outdir writes a command's generated files into a directory that
// may hold other files too, and owns only what it wrote.
//
// Write records the files it wrote in a manifest, ManifestName, in the
// directory. A later Write into the same directory may overwrite or remove
// the files that manifest lists, and nothing else: a file it would
// overwrite that the manifest does not list is an error, and so is an
// output path that exists but is not a directory. A symbolic link on the
// way to a file, below the directory, is an error too: it may lead out of
// the directory, into a user's files (the directory itself is the user's
// to name, link or not). So "gasp analyze --out ."
// in a repository fails instead of replacing its README.md, and
// regenerating an analysis removes the figures of a task that is gone but
// never a file a person put beside them.
//
//	written, err := outdir.Write("analysis/quick", map[string][]byte{
//		"README.md": readme,
//		"fig3a/t1.svg": svg,
//	})
//
// File names are slash-separated paths relative to the directory. The
// manifest is sorted, so the same files give the same manifest byte for
// byte.
package outdir

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gasplab/gasp/pkg/atomicfile"
	"github.com/gasplab/gasp/pkg/infile"
)

// ManifestName is the manifest's file name in an output directory.
const ManifestName = "gasp-manifest.txt"

// header is the manifest's first line; a file of that name without it was
// not written by this package and is never overwritten.
const header = "# gasp output manifest: files generated here by gasp; regenerating removes or overwrites only these"

// Write writes files into dir, creating it, and removes the files that the
// previous manifest of dir lists and files does not. It returns the paths
// written (dir joined with each name), sorted. Nothing is written or removed
// when a check fails: dir exists and is not a directory, a name is not a
// clean relative path, or a file to write exists and is not listed in the
// manifest.
func Write(dir string, files map[string][]byte) ([]string, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		if err := checkName(name); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	sort.Strings(names)
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("output directory %s exists and is not a directory", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	old, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	if err := checkOwned(dir, names, old); err != nil {
		return nil, err
	}
	for _, name := range old {
		if _, err := lstatBelow(dir, name); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// The manifest lists old and new files while both may be present, so
	// that an interrupted Write leaves nothing unlisted behind.
	if err := writeManifest(dir, union(old, names)); err != nil {
		return nil, err
	}
	var written []string
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := writeFile(p, files[name]); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	for _, name := range old {
		if _, ok := files[name]; ok {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if fi, err := lstatBelow(dir, name); err == nil && fi != nil && fi.Mode().IsRegular() {
			if err := os.Remove(p); err != nil {
				return written, err
			}
		}
	}
	return written, writeManifest(dir, names)
}

// checkName accepts a clean, relative, slash-separated path.
func checkName(name string) error {
	if name == "" || path.IsAbs(name) || path.Clean(name) != name || name == ".." ||
		strings.HasPrefix(name, "../") || strings.Contains(name, `\`) || name == ManifestName {
		return fmt.Errorf("outdir: bad output file name %q", name)
	}
	return nil
}

// checkOwned fails when a file to write exists and old does not list it.
func checkOwned(dir string, names, old []string) error {
	listed := map[string]bool{}
	for _, n := range old {
		listed[n] = true
	}
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		fi, err := lstatBelow(dir, name)
		if err != nil {
			return err
		}
		if fi == nil {
			continue
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s exists and is not a regular file; not replacing it", p)
		}
		if !listed[name] {
			return fmt.Errorf("%s exists and was not written by gasp (%s does not list it); not replacing it: move it away or choose another output directory",
				p, filepath.Join(dir, ManifestName))
		}
	}
	return nil
}

// lstatBelow returns the file info of name in dir, nil if it does not
// exist, without following a link: each directory on the way from dir is
// Lstat()ed, since os.Lstat follows links in all but the last component,
// and a link or a non-directory among them is an error naming it.
func lstatBelow(dir, name string) (fs.FileInfo, error) {
	p := dir
	parts := strings.Split(name, "/")
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 && i < len(parts)-1 {
			return nil, fmt.Errorf("%s is a symbolic link; gasp does not write through it (it may lead out of %s): remove it or choose another output directory", p, dir)
		}
		if i == len(parts)-1 {
			return fi, nil
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("%s exists and is not a directory; not writing %s", p, filepath.Join(dir, filepath.FromSlash(name)))
		}
	}
	return nil, nil
}

// ReadManifest returns the names the manifest of dir lists, none when it
// has no manifest. A file named ManifestName that is not a manifest is an
// error.
func ReadManifest(dir string) ([]string, error) {
	p := filepath.Join(dir, ManifestName)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 16<<20 {
		return nil, fmt.Errorf("%s is not a gasp manifest (not a regular file of at most 16 MiB)", p)
	}
	b, err := infile.Read(p, 16<<20) // checked above; a file replaced since is refused too
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() || sc.Text() != header {
		return nil, fmt.Errorf("%s:1: not a gasp manifest (first line is not %q); not touching %s", p, header, dir)
	}
	var names []string
	for line := 2; sc.Scan(); line++ {
		if err := checkName(sc.Text()); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", p, line, err)
		}
		names = append(names, sc.Text())
	}
	return names, sc.Err()
}

func writeManifest(dir string, names []string) error {
	var b bytes.Buffer
	b.WriteString(header + "\n")
	for _, n := range names {
		b.WriteString(n + "\n")
	}
	return writeFile(filepath.Join(dir, ManifestName), b.Bytes())
}

// writeFile replaces p by data, creating its directory: atomically, so
// that p is never left half written.
func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(p, data)
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string{}, a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
