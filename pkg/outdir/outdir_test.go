package outdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteOwnsOnlyItsFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644)
	if _, err := Write(dir, map[string][]byte{"a.csv": []byte("1"), "fig/t1.svg": []byte("s")}); err != nil {
		t.Fatal(err)
	}
	// A second rendering without fig/t1.svg removes it, keeps notes.md.
	if _, err := Write(dir, map[string][]byte{"a.csv": []byte("2")}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "a.csv")); got != "2" {
		t.Errorf("a.csv = %q, want 2", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "fig/t1.svg")); !os.IsNotExist(err) {
		t.Errorf("fig/t1.svg not removed: %v", err)
	}
	if got := read(t, filepath.Join(dir, "notes.md")); got != "mine" {
		t.Errorf("notes.md = %q", got)
	}
	if got := read(t, filepath.Join(dir, ManifestName)); got != header+"\na.csv\n" {
		t.Errorf("manifest = %q", got)
	}
}

func TestWriteRefuses(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "README.md")
	os.WriteFile(user, []byte("user"), 0o644)
	file := filepath.Join(dir, "file.md")
	os.WriteFile(file, []byte("user"), 0o644)
	badManifest := t.TempDir()
	os.WriteFile(filepath.Join(badManifest, ManifestName), []byte("my list\n"), 0o644)
	for _, tc := range []struct {
		name, dir string
		files     map[string][]byte
		want      string
	}{
		{"unlisted file", dir, map[string][]byte{"README.md": nil}, "not written by gasp"},
		{"not a directory", file, map[string][]byte{"a.csv": nil}, "not a directory"},
		{"foreign manifest", badManifest, map[string][]byte{"a.csv": nil}, "not a gasp manifest"},
		{"escaping name", dir, map[string][]byte{"../x.csv": nil}, "bad output file name"},
		{"absolute name", dir, map[string][]byte{"/x.csv": nil}, "bad output file name"},
	} {
		_, err := Write(tc.dir, tc.files)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if read(t, user) != "user" || read(t, file) != "user" {
		t.Error("a refused Write changed a user's file")
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestName)); !os.IsNotExist(err) {
		t.Error("a refused Write left a manifest")
	}
}

// A writer never follows a symbolic link out of its directory, wherever
// the link stands on the path: a subdirectory replaced by a link to a
// user's directory, a link deeper down, a link to a file. Writes and
// removals are refused, naming the link, and the user's files are kept.
func TestWriteRefusesSymlinkedComponents(t *testing.T) {
	for _, tc := range []struct {
		name  string
		link  string // the path in dir made a link to the user's directory
		files map[string][]byte
	}{
		{"subdirectory", "authors", map[string][]byte{"authors/README.md": []byte("new"), "a.csv": []byte("1")}},
		{"deeper", "authors/fig", map[string][]byte{"authors/fig/kl.csv": []byte("new")}},
		// The second Write drops authors/README.md: removing it through
		// the link would remove the user's file.
		{"removal", "authors", map[string][]byte{"a.csv": []byte("2")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, user := t.TempDir(), t.TempDir()
			mine := map[string]string{"README.md": "my readme", "kl.csv": "my data", "fig/kl.csv": "my figure data"}
			for n, c := range mine {
				os.MkdirAll(filepath.Dir(filepath.Join(user, n)), 0o755)
				os.WriteFile(filepath.Join(user, n), []byte(c), 0o644)
			}
			first := map[string][]byte{"authors/README.md": []byte("gen"), "authors/kl.csv": []byte("gen"), "authors/fig/kl.csv": []byte("gen"), "a.csv": []byte("0")}
			if _, err := Write(dir, first); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, filepath.FromSlash(tc.link))
			os.RemoveAll(link)
			target := user
			if tc.link == "authors/fig" {
				target = filepath.Join(user, "fig")
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			_, err := Write(dir, tc.files)
			want := link + " is a symbolic link; gasp does not write through it"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v, want %q", err, want)
			}
			for n, c := range mine {
				if got := read(t, filepath.Join(user, n)); got != c {
					t.Errorf("the user's %s = %q, want %q", n, got, c)
				}
			}
		})
	}
}
