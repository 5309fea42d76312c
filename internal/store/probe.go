package store

import (
	"database/sql"
	"fmt"
	"sync"
)

// A VersionProbe lets a caller learn, from the statements a read already
// runs, the value of a counter kept outside the Store: kit's authorization
// version. The record reads that support it (Get, GetMany, List) add the
// probe's scalar subquery as one more column of a statement they run
// anyway, so the counter is read in the same snapshot as the data,
// without a round trip of its own. A read whose statements return no row
// (a missing record, an empty page) records nothing: the caller reads the
// counter by itself then.
type VersionProbe struct {
	column string // ", (<scalar subquery>)"

	mu    sync.Mutex
	value int64
	seen  bool
	mixed bool // two statements saw different values
}

// A Counter is a counter kept outside the Store, such as kit's
// authorization version (teamauth), that reads can probe (VersionProbe)
// and writes can be guarded by (WriteGuard).
type Counter interface {
	// Subquery returns a parenthesized scalar subquery of the counter's
	// one BIGINT value, taking no arguments, such as
	// "(SELECT version FROM kit_auth_state WHERE id = 1)". Its owner
	// vouches for the text: the Store writes it into its statements as it
	// is.
	Subquery() string
}

// NewVersionProbe returns a probe of counter c.
func NewVersionProbe(c Counter) *VersionProbe {
	return &VersionProbe{column: ", " + c.Subquery()}
}

// Value returns the counter's value that the probed statements saw, and
// whether they saw exactly one: false when no statement returned a row, or
// when two saw different values.
func (p *VersionProbe) Value() (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.value, p.seen && !p.mixed
}

// record keeps v, read by one statement.
func (p *VersionProbe) record(v int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen && p.value != v {
		p.mixed = true
	}
	p.value, p.seen = v, true
}

// probeValue scans the probe's column into the probe; NULL (no counter
// row) records nothing.
type probeValue struct{ probe *VersionProbe }

func (v probeValue) Scan(src any) error {
	var n sql.NullInt64
	if err := n.Scan(src); err != nil {
		return fmt.Errorf("store: version probe: %w", err)
	}
	if n.Valid {
		v.probe.record(n.Int64)
	}
	return nil
}

// extraOf returns the scan destinations of a probe column: none for nil.
func extraOf(dst sql.Scanner) []any {
	if dst == nil {
		return nil
	}
	return []any{dst}
}
