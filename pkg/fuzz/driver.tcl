# driver.tcl: runs one SQLite test script (test/*.test style) in testfixture
# for gasp fuzz (package pkg/fuzz).
#
#   testfixture driver.tcl TESTDIR INPUT
#
# argv0 is set into TESTDIR (the SQLite source tree's test/ directory) so that
# the script's "source $testdir/tester.tcl" finds the harness; the input is then
# sourced with a restricted command set: exec, socket and load are removed,
# interp can no longer create interpreters or reach hidden commands, and cd,
# open and the writing subcommands of file accept only relative paths that
# stay in the current directory. This is a first barrier only: gasp fuzz also runs
# testfixture in an OS sandbox (bubblewrap) whose only writable directory is a
# throwaway one and which has no network.
set gasp_testdir [lindex $argv 0]
set gasp_input [lindex $argv 1]
set argv {}
set argc 0
set argv0 [file join $gasp_testdir gasp-input.test]

namespace eval ::gasp_sandbox {
	proc deny {name args} {
		return -code error "gasp fuzz sandbox: $name is disabled"
	}
	# inside reports whether path is relative and stays in the current directory.
	proc inside {path} {
		if {[file pathtype $path] ne "relative"} { return 0 }
		if {[string index $path 0] eq "~"} { return 0 }
		set depth 0
		foreach part [file split $path] {
			switch -- $part {
				. {}
				.. { incr depth -1; if {$depth < 0} { return 0 } }
				default { incr depth }
			}
		}
		return 1
	}
}

foreach cmd {exec socket load} {
	rename $cmd {}
	proc ::$cmd {args} [list ::gasp_sandbox::deny $cmd]
}

rename cd ::gasp_sandbox::cd
proc ::cd {{path ""}} {
	if {![::gasp_sandbox::inside $path]} {
		::gasp_sandbox::deny "cd $path"
	}
	::gasp_sandbox::cd $path
}

rename open ::gasp_sandbox::open
proc ::open {path args} {
	if {[string index $path 0] eq "|" || ![::gasp_sandbox::inside $path]} {
		::gasp_sandbox::deny "open $path"
	}
	uplevel 1 [list ::gasp_sandbox::open $path {*}$args]
}

rename file ::gasp_sandbox::file
proc ::file {sub args} {
	switch -glob -- $sub {
		del* - ren* - cop* - mk* - li* - att* - ati* - mt* - tem* {
			foreach a $args {
				if {[string index $a 0] eq "-"} continue
				if {![::gasp_sandbox::inside $a]} {
					::gasp_sandbox::deny "file $sub $a"
				}
			}
		}
	}
	uplevel 1 [list ::gasp_sandbox::file $sub {*}$args]
}

rename interp ::gasp_sandbox::interp
proc ::interp {sub args} {
	switch -glob -- $sub {
		cr* - inv* - exp* - hid* - al* - tr* - sh* - rec* - lim* - bg* - ca* {
			::gasp_sandbox::deny "interp $sub"
		}
	}
	uplevel 1 [list ::gasp_sandbox::interp $sub {*}$args]
}

source $gasp_input
