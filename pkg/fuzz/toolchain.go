package fuzz

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gasplab/gasp/pkg/infile"
)

//go:embed driver.tcl
var driverTcl []byte

// Targets returns the names of the fuzz targets, in report order.
func Targets() []string { return []string{"xml", "sql"} }

// A Toolchain is a directory built by scripts/fuzz-setup.sh.
type Toolchain struct {
	Dir string // absolute
}

// ToolchainEnv is the environment variable that names the toolchain
// directory for the tests (scripts/test.sh sets it).
const ToolchainEnv = "GASP_FUZZ_TOOLCHAIN"

// OpenToolchain checks that dir holds a toolchain: the sources fetched and
// afl-fuzz, llvm-profdata-14, llvm-cov-14 and bwrap on PATH. Target checks
// the builds of a target.
func OpenToolchain(dir string) (*Toolchain, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// The sandbox binds the toolchain at its own path, which bwrap cannot
	// create through a symbolic link (a checkout whose .cache links to a
	// shared one): use the path the link resolves to.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	tc := &Toolchain{Dir: abs}
	var missing []string
	if _, err := os.Stat(filepath.Join(abs, "src", ".done")); err != nil {
		missing = append(missing, "src")
	}
	for _, p := range []string{"afl-fuzz", "llvm-profdata-14", "llvm-cov-14", "bwrap"} {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("fuzz toolchain in %s is incomplete (missing %s); run scripts/fuzz-setup.sh",
			abs, strings.Join(missing, ", "))
	}
	return tc, nil
}

// A Target is a library under test with its two builds.
type Target struct {
	Name    string // "xml" or "sql"
	Library string // "libxml2" or "sqlite3"
	Version string // the Debian source version, such as 2.9.14+dfsg-1.3~deb12u6
	Ext     string // seed file extension, ".xml" or ".test"
	AFLBin  string // the AFL++-instrumented binary
	CovBin  string // the coverage-instrumented binary
	// Sources are the files and directories llvm-cov reports on: the
	// library's own sources.
	Sources []string
	// Ignore is a regular expression of source files to leave out of the
	// coverage report.
	Ignore string
	// Timeout is the per-execution timeout, in milliseconds, for afl-fuzz.
	Timeout    int
	testDir    string // sql: the SQLite source tree's test/ directory
	wellFormed bool   // xml: check well-formedness only (no --valid)
}

// Target returns the named target ("xml" or "sql").
func (tc *Toolchain) Target(name string) (*Target, error) {
	b := filepath.Join(tc.Dir, "build")
	for _, kind := range []string{"-afl", "-cov"} {
		if _, err := os.Stat(filepath.Join(b, name+kind, ".done")); err != nil && (name == "xml" || name == "sql") {
			return nil, fmt.Errorf("fuzz target %s is not built (%s missing); run scripts/fuzz-setup.sh", name, filepath.Join(b, name+kind))
		}
	}
	src := filepath.Join(tc.Dir, "src")
	switch name {
	case "xml":
		return &Target{
			Name: "xml", Library: "libxml2", Version: tc.version("libxml2"), Ext: ".xml",
			AFLBin:  filepath.Join(b, "xml-afl", "xmllint"),
			CovBin:  filepath.Join(b, "xml-cov", "xmllint"),
			Sources: []string{filepath.Join(src, "libxml2")},
			Ignore:  `xmllint\.c|testapi|/test`,
			Timeout: 1000,
		}, nil
	case "sql":
		return &Target{
			Name: "sql", Library: "sqlite3", Version: tc.version("sqlite3"), Ext: ".test",
			AFLBin:  filepath.Join(b, "sql-afl", "testfixture"),
			CovBin:  filepath.Join(b, "sql-cov", "testfixture"),
			Sources: []string{filepath.Join(b, "sql-cov", "sqlite3.c")},
			Timeout: 1000,
			testDir: filepath.Join(src, "sqlite3", "test"),
		}, nil
	}
	return nil, fmt.Errorf("unknown fuzz target %q (want xml or sql)", name)
}

// version returns the Debian version of the source package pkg, from the
// .dsc file names that fuzz-setup.sh records.
func (tc *Toolchain) version(pkg string) string {
	data, err := infile.Read(filepath.Join(tc.Dir, "src", "versions"), 1<<20) // a few lines
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Fields(string(data)) {
		if v, ok := strings.CutPrefix(l, pkg+"_"); ok {
			return strings.TrimSuffix(v, ".dsc")
		}
	}
	return "unknown"
}

// GrammarFile is the grammar of a target, relative to the repository root.
func GrammarFile(target string) (string, error) {
	switch target {
	case "xml":
		return "grammar/xml.gbnf", nil
	case "sql":
		return "grammar/sqlite-test.gbnf", nil
	}
	return "", fmt.Errorf("unknown fuzz target %q (want xml or sql)", target)
}

// args returns the command line that runs bin on input; work is the
// sandbox's work directory, which holds the Tcl driver for the sql target.
func (t *Target) args(bin, input, work string) []string {
	if t.Name == "xml" && t.wellFormed {
		return []string{bin, "--noout", "--noent", "--nonet", input}
	}
	if t.Name == "xml" {
		return []string{bin, "--noout", "--valid", "--noent", "--nonet", input}
	}
	return []string{bin, filepath.Join(work, "driver.tcl"), t.testDir, input}
}

// prepare writes what a sandbox work directory needs to run the target.
func (t *Target) prepare(work string) error {
	if t.Name != "sql" {
		return nil
	}
	return os.WriteFile(filepath.Join(work, "driver.tcl"), driverTcl, 0o644)
}

// sandbox returns a sandbox for the target whose writable directory is work.
func (tc *Toolchain) sandbox(work string, env ...string) *Sandbox {
	return &Sandbox{Work: work, ReadOnly: []string{tc.Dir}, Env: env}
}

var errNoSeeds = errors.New("no seed files")
