//go:build !linux

package kit_test

import "time"

// processCPU reports -1: the CPU and write counters are read on Linux only.
func processCPU() time.Duration { return -1 }

func processWritten() int64 { return 0 }

func processWrites() int64 { return 0 }
