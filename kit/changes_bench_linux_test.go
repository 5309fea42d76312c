package kit_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processCPU returns the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processWritten returns the bytes the process has handed to write(2) and
// its kin so far (wchar in /proc/self/io).
func processWritten() int64 { return processIO("wchar: ") }

// processWrites returns how many write(2) calls and their kin the process
// has made so far (syscw in /proc/self/io).
func processWrites() int64 { return processIO("syscw: ") }

func processIO(prefix string) int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}
