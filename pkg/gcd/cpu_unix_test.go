//go:build unix

package gcd

import "syscall"

// processCPU returns the process's user and system CPU time so far, in ns
// (0 where getrusage fails), for benchmarks that report CPU time beside
// wall time.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
