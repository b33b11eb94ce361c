//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user and system) the process has used, for the
// benchmarks that report it.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
