// Package membound refuses, before anything is allocated, work whose
// memory estimate exceeds the machine's memory, with an error that says how
// much it needs and how much there is:
//
//	if err := membound.Check("--batch 100000", need); err != nil {
//		return err // "--batch 100000 needs 37.3 GiB; this machine has 23.4 GiB"
//	}
//
// The estimate is the caller's (bytes of the buffers it is about to make);
// the machine's memory is MemTotal of /proc/meminfo, or, where that cannot
// be read, Fallback. Estimates are float64 so that products of huge counts
// (runs × bytes per run) cannot overflow.
package membound

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Fallback is the memory assumed where /proc/meminfo cannot be read.
const Fallback = 64 << 30

// Total returns the memory this process may use, in bytes: the machine's
// (MemTotal of /proc/meminfo, else Fallback), or less where the process's
// address space (ulimit -v) or its cgroup (memory.max) is limited.
func Total() float64 {
	t := memTotal()
	for _, l := range []float64{addressLimit(), cgroupLimit()} {
		if l > 0 && l < t {
			t = l
		}
	}
	return t
}

// memTotal returns MemTotal of /proc/meminfo, or Fallback.
func memTotal() float64 {
	if kb := procField("/proc/meminfo", "MemTotal:"); kb > 0 {
		return kb * 1024
	}
	return Fallback
}

// vmSize returns the address space the process maps (VmSize of
// /proc/self/status), or 0 where that cannot be read.
func vmSize() float64 {
	return procField("/proc/self/status", "VmSize:") * 1024
}

// procField returns the number after name in the /proc file path (a
// count of kB), or 0.
func procField(path, name string) float64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == name {
			kb, err := strconv.ParseFloat(fields[1], 64)
			if err == nil && kb > 0 {
				return kb
			}
		}
	}
	return 0
}

// cgroupLimit returns the memory.max of the process's cgroup (v2), or 0
// where there is none.
func cgroupLimit() float64 {
	b, err := os.ReadFile("/sys/fs/cgroup/memory.max")
	if err != nil {
		return 0
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil { // "max"
		return 0
	}
	return v
}

// Check returns an *Error when need bytes (NaN and +Inf included) exceed
// the machine's memory. what names the request in the message.
func Check(what string, need float64) error {
	return CheckAgainst(what, need, Total())
}

// CheckAgainst is Check with the machine's memory given.
func CheckAgainst(what string, need, total float64) error {
	if need >= 0 && need <= total && !math.IsInf(need, 1) {
		return nil
	}
	return &Error{What: what, Need: need, Total: total}
}

// Error is a request refused for its memory: what a caller can tell from
// other errors (errors.As) to say which of its inputs asked for it, as a
// command line names its flag.
type Error struct {
	What        string  // the request
	Need, Total float64 // bytes it needs; bytes there are
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s needs %s of memory; this machine has %s", e.What, Bytes(e.Need), Bytes(e.Total))
}

// Bytes formats a byte count: "512 B", "3.2 MiB", "37.3 GiB", "2.1e+06 TiB".
func Bytes(b float64) string {
	switch {
	case math.IsNaN(b) || math.IsInf(b, 0):
		return "an unbounded amount"
	case b < 1<<10:
		return fmt.Sprintf("%.0f B", b)
	case b < 1<<20:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	case b < 1<<30:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b < 1<<40:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	}
	return fmt.Sprintf("%.3g TiB", b/(1<<40))
}
