package store

import (
	"context"
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

// NewVersionProbe returns a probe for subquery, a parenthesized scalar
// subquery of one BIGINT value taking no arguments, such as
// "(SELECT version FROM kit_auth_state WHERE id = 1)". The caller vouches
// for its text: it becomes part of the Store's statements as it is.
func NewVersionProbe(subquery string) *VersionProbe {
	return &VersionProbe{column: ", " + subquery}
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

type versionProbeKey struct{}

// WithVersionProbe returns ctx carrying p: the Store's record reads under
// ctx record the counter's value in p.
func WithVersionProbe(ctx context.Context, p *VersionProbe) context.Context {
	return context.WithValue(ctx, versionProbeKey{}, p)
}

// probeOf returns the probe ctx carries, or nil.
func probeOf(ctx context.Context) *VersionProbe {
	p, _ := ctx.Value(versionProbeKey{}).(*VersionProbe)
	return p
}

// probeColumn returns the extra select column of ctx's probe ("" without
// one) and the destination to scan it into (nil without one), which
// records the value in the probe.
func probeColumn(ctx context.Context) (string, sql.Scanner) {
	p := probeOf(ctx)
	if p == nil {
		return "", nil
	}
	return p.column, probeValue{p}
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
