// Package fuzz measures how well seed corpora exercise two real libraries
// under coverage-guided fuzzing, after the fuzzing experiment of the gasp
// paper: libxml2 (target "xml", seeds are XML documents run through
// xmllint --noout --valid --noent --nonet) and SQLite (target "sql", seeds are
// TCL test scripts run by SQLite's testfixture).
//
// The toolchain (AFL++, clang and llvm-14, Debian's libxml2 and sqlite3
// sources, one AFL++ build and one coverage build per target) is installed
// and built by scripts/fuzz-setup.sh into a directory, .cache/fuzz by
// default; OpenToolchain checks it. Run fuzzes a target from a directory of
// seeds for a given time and number of trials (AFL_RANDOM_SEED=42+i and
// afl-fuzz -s 42+i for trial i), replays each trial's queue through the
// coverage build, and reports branch, line and function coverage of the
// library's own sources over time (llvm-profdata, llvm-cov), with bootstrap
// 95% confidence intervals over trials. A time of zero measures the seeds
// alone. afl-fuzz runs with a fixed per-execution timeout (Target.Timeout,
// or Options.ExecTimeout): with "-t N+" AFL++ 4.04c calibrates its own from
// the seeds, 40 ms for SQLite. Seeds slower than half of it are left out of
// the AFL++ run (Trial.SlowSeeds), since a seed that times out stops
// afl-fuzz. Options.Dict gives afl-fuzz a dictionary, such as Dictionary,
// the grammar's literals (off by default, as in the paper).
//
// Every execution of a target, and afl-fuzz itself, runs in a Sandbox:
// bubblewrap with a read-only root file system, an empty $HOME and /tmp, no
// network, and one writable throwaway directory (run as root, bwrap needs
// no user namespaces; as another user it needs unprivileged user
// namespaces). There is no unsandboxed mode. Test scripts for the sql
// target are further run by a restricted Tcl driver (exec, socket, load and
// cd removed; open and file writes confined to the current directory).
//
// Baseline seeds (GrammarSeeds) are random derivations of the target's
// grammar (grammar/xml.gbnf, grammar/sqlite-test.gbnf), the
// Grammarinator-style baseline of the paper; Validity measures the fraction
// of such samples the real library accepts. StoreSeeds takes the seeds of a
// language-model sampler from a run store (pkg/runs): the first n valid
// samples of a task and method at a step k.
//
// WriteReport turns a directory of coverage.json files, one per target and
// method (DIR/<target>/<method>/coverage.json, method "gcd", "asap-k10",
// "grammarinator", "mcmc-priority-k5", ...), into the paper's Tables 2–3
// (Markdown and CSV: coverage with CIs, branch gain over GCD) and
// coverage-over-time plots (SVG), deterministically. Beside the mean, the
// tables give what fuzzing evaluations are judged by (Klees et al. 2018):
// per method against GCD, on the final branch coverage of the trials, the
// Vargha–Delaney Â12 effect size and the two-sided Mann–Whitney U test's
// p-value (MannWhitneyU: exact without ties and at most 8 trials a side,
// else the normal approximation with tie correction, as scipy's
// mannwhitneyu), marking p < 0.05 with the multiple-comparison caveat.
// They draw no interval from fewer than 3 trials, give the scale (seeds per
// method, trials and their length) in every title and caption, and call a
// run of fewer than 3 trials or trials under 5 minutes a smoke test.
package fuzz
