package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gasplab/gasp/pkg/outdir"
)

// docsChecked returns the hand-written documents of the repository:
// README.md, the other top-level .md files and every README.md that no
// gasp output manifest lists (those are generated, and their generators'
// tests check them).
func docsChecked(t *testing.T, root string) []string {
	t.Helper()
	docs, _ := filepath.Glob(filepath.Join(root, "*.md"))
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".cache" || d.Name() == "build") {
			return filepath.SkipDir
		}
		if d.Name() != "README.md" || filepath.Dir(p) == root {
			return nil
		}
		listed, _ := outdir.ReadManifest(filepath.Dir(p))
		if !slices.Contains(listed, "README.md") {
			docs = append(docs, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

var (
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	backtick = regexp.MustCompile("`([^`\n]+)`")
)

// Every file a document links to or names in backticks exists: a relative
// Markdown link from the document's directory, a backticked path (one that
// starts with a top-level entry of the repository, or of the document's
// directory) from either. Globs must match something; paths with
// placeholders (<task>, …) and absolute ones are not checked, nor those
// .gitignore lists from the root (/.cache/, /mcmc/demo/: outputs).
func TestDocsNameFilesThatExist(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ignored := rootIgnores(t, root)
	for _, doc := range docsChecked(t, root) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		dir := filepath.Dir(doc)
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(target))); err != nil {
				t.Errorf("%s links to %s, which does not exist", rel, m[1])
			}
		}
		for _, m := range backtick.FindAllStringSubmatch(string(b), -1) {
			p, ok := repoPath(m[1], root, dir)
			if !ok || slices.ContainsFunc(ignored, func(ig string) bool { return p == ig || strings.HasPrefix(p, ig+"/") }) {
				continue
			}
			if !existsUnder(p, root) && !existsUnder(p, dir) {
				t.Errorf("%s names `%s`, which does not exist", rel, m[1])
			}
		}
	}
}

// rootIgnores returns the directories .gitignore ignores at the root
// ("/mcmc/demo/" gives "mcmc/demo").
func rootIgnores(t *testing.T, root string) []string {
	b, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "/") && strings.HasSuffix(line, "/") {
			dirs = append(dirs, strings.Trim(line, "/"))
		}
	}
	return dirs
}

// repoPath returns s as a path to check when it looks like one of the
// repository's: no spaces or placeholders, and a first element that is a
// top-level entry of root or of dir; a name without a directory only when
// it is a Markdown file's (environment.md).
func repoPath(s, root, dir string) (string, bool) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "./"), "/")
	if s == "" || strings.ContainsAny(s, " <>{}$…:=,|\\\"'~") || strings.Contains(s, "...") || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "/") {
		return "", false
	}
	first, _, _ := strings.Cut(s, "/")
	switch {
	case first == "..":
		return "", false
	case !strings.Contains(s, "/"):
		return s, strings.HasSuffix(s, ".md")
	}
	for _, d := range []string{root, dir} {
		if _, err := os.Stat(filepath.Join(d, first)); err == nil {
			return s, true
		}
	}
	return "", false
}

// existsUnder reports whether p (slash-separated, maybe a glob) names a
// file or directory under dir.
func existsUnder(p, dir string) bool {
	full := filepath.Join(dir, filepath.FromSlash(p))
	if strings.ContainsAny(p, "*?[") {
		m, _ := filepath.Glob(full)
		return len(m) > 0
	}
	_, err := os.Stat(full)
	return err == nil
}

// README's command list names every command and subcommand of gasp's
// dispatch table.
func TestReadmeListsEveryCommand(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, _ := strings.Cut(string(b), "## Command line")
	list, _, _ = strings.Cut(list, "\n## ")
	groups := map[string][]subcommand{"grammar": grammarCommands, "bench": benchCommands, "fuzz": fuzzCommands, "experiment": experimentCommands(nil)}
	for _, c := range commandTable(Options{}) {
		names := []string{"gasp " + c.name}
		if subs, ok := groups[c.name]; ok {
			names = names[:0]
			for _, s := range subs {
				names = append(names, "gasp "+c.name+" "+s.name)
			}
		}
		for _, n := range names {
			if !strings.Contains(list, "\n"+n+" ") && !strings.Contains(list, "\n"+n+"\n") {
				t.Errorf("README's command list lacks %q", n)
			}
		}
	}
}
