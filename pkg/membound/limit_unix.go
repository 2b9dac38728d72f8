//go:build unix

package membound

import "syscall"

// addressLimit returns what is left of the soft limit of the process's
// address space (ulimit -v): the limit less the address space it maps
// already (1.5 GB for gasp, mostly reserved by the Go runtime), or 0 where
// there is no limit (RLIM_INFINITY is -1, 2^63−1 or 2^64−1, depending on
// the system).
func addressLimit() float64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		return 0
	}
	if v := float64(rl.Cur); v > 0 && v < 1<<62 {
		return max(v-vmSize(), 1)
	}
	return 0
}
