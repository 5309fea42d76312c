package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// pinProcess restricts every thread of this process to cpus and sets
// GOMAXPROCS to their number, as `taskset -a -p` would: existing threads
// are pinned one by one through /proc/self/task, threads started later
// inherit the mask of the thread that starts them. It returns a function
// that restores the previous mask and GOMAXPROCS.
func pinProcess(cpus []int) (restore func(), err error) {
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	if err := setAllThreads(&set); err != nil {
		return nil, err
	}
	prev := runtime.GOMAXPROCS(len(cpus))
	return func() {
		_ = setAllThreads(&old)
		runtime.GOMAXPROCS(prev)
	}, nil
}

func setAllThreads(set *unix.CPUSet) error {
	// Pin the calling thread first, so threads it spawns while we walk the
	// list inherit the new mask.
	if err := unix.SchedSetaffinity(0, set); err != nil {
		return fmt.Errorf("sched_setaffinity: %w", err)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		// A thread may have exited since the listing: ignore ESRCH.
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("sched_setaffinity(%d): %w", tid, err)
		}
	}
	return nil
}

// allowedCPUs lists the CPUs this process may run on.
func allowedCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var out []int
	for c := 0; c < 1024 && len(out) < set.Count(); c++ {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}
