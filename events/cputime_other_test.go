//go:build !unix

package events_test

import "time"

// cpuTime is not measured here: BenchmarkCreate reports 0 cpu-µs/op.
func cpuTime() time.Duration { return 0 }
