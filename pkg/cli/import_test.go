package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gasp import authors, then gasp analyze under both protocols, on the
// fixtures of pkg/authors.
func TestImportAnalyzeAuthors(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	code, _, errOut := gasp("import", "authors", "../../pkg/authors/testdata", "--out", store)
	if code != 0 || !strings.Contains(errOut, "2 tasks, 36 files: 154 records") || !strings.Contains(errOut, "5 skipped") {
		t.Fatalf("gasp import: exit %d: %s", code, errOut)
	}
	for _, p := range []string{"authors", "gasp"} {
		out := filepath.Join(dir, "analysis-"+p)
		if code, _, errOut := gasp("analyze", "fixtures", "--store", store, "--out", out, "--protocol", p, "--resamples", "50"); code != 0 {
			t.Fatalf("gasp analyze --protocol %s: exit %d: %s", p, code, errOut)
		}
		other := map[string]string{"authors": "gasp", "gasp": "authors"}[p]
		readme, err := os.ReadFile(filepath.Join(out, "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"geomean.csv", "protocols.csv", "fig2a-sygus-repr.svg", other + "/geomean.csv", other + "/README.md"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("--protocol %s: %v", p, err)
			}
		}
		if !strings.Contains(string(readme), "## Both protocols") || !strings.Contains(string(readme), "mcmc-restart k=0 on 2 tasks") {
			t.Errorf("--protocol %s: README:\n%s", p, readme)
		}
	}
	// The exact samples: analyze-true measures the chains against the cars runs.
	out := filepath.Join(dir, "true")
	code, _, errOut = gasp("analyze-true", "--store", store, "--exact", store, "--method", "cars", "--min-exact", "5", "--resamples", "20", "--out", out)
	if code != 0 {
		t.Fatalf("gasp analyze-true: exit %d: %s", code, errOut)
	}
	if readme, err := os.ReadFile(filepath.Join(out, "README.md")); err != nil || !strings.Contains(string(readme), "mcmc-restart") {
		t.Errorf("analyze-true README: %v\n%s", err, readme)
	}
	// --strict: the same logs are refused, naming what cannot be imported.
	code, _, errOut = gasp("import", "authors", "../../pkg/authors/testdata", "--strict", "--out", filepath.Join(dir, "strict"))
	if code != 1 || !strings.Contains(errOut, "--strict") || !strings.Contains(errOut, "oldcars-2025-01-17_10-00-00: not a style directory") {
		t.Errorf("--strict: exit %d: %s", code, errOut)
	}
	// A second import into the same store is refused; it is left as it was.
	if code, _, errOut := gasp("import", "authors", "../../pkg/authors/testdata", "--out", store); code != 1 || !strings.Contains(errOut, "exists") {
		t.Errorf("second import: exit %d: %s", code, errOut)
	}
}

func TestImportMisuse(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import", "authors", "x"}, 2, "--out STORE is required"},
		{[]string{"import", "mine", "x", "--out", "y"}, 2, "want: authors DIR"},
		{[]string{"import", "authors", "x", "--out", "y", "--eos", "1,a"}, 2, `"a" is not a token id`},
		{[]string{"import", "authors", filepath.Join(t.TempDir(), "none"), "--out", filepath.Join(t.TempDir(), "s")}, 1, "no such file"},
		{[]string{"analyze", "x", "--protocol", "paper"}, 2, "--protocol must be gasp or authors"},
	} {
		code, _, errOut := gasp(c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("gasp %v: exit %d, %q; want %d, %q", c.args, code, errOut, c.code, c.want)
		}
	}
}
