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
// alone.
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
// of such samples the real library accepts.
package fuzz
