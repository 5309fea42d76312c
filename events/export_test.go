package events

// RetentionRuns returns how many cleanups t's retention loop has run.
func RetentionRuns(t *Tracker) int64 { return t.retentionRuns.Load() }
