package store

import (
	"database/sql"

	"github.com/uptrace/bun"
)

// Read says where a record read (Get, GetMany, List) runs and what else
// its statements read. The zero Read runs on the Store's own pool.
type Read struct {
	// Tx is the caller's transaction the read runs in, which sees the
	// transaction's own writes; nil means the Store's own pool, where a
	// list may answer its total from the counts and totals the Store
	// keeps (the writes of a transaction are not in them until it
	// commits).
	Tx bun.IDB

	// Probe, when not nil, records the value its counter had in the
	// read's statements (see VersionProbe).
	Probe *VersionProbe
}

// InTx returns a Read in tx, the caller's transaction.
func InTx(tx bun.IDB) Read { return Read{Tx: tx} }

// pool reports whether r runs on the Store's own pool.
func (r Read) pool() bool { return r.Tx == nil }

// db returns the database r runs on.
func (r Read) db(s *Store) bun.IDB {
	if r.Tx == nil {
		return s.db
	}
	return r.Tx
}

// probeColumn returns the extra select column of r's probe ("" without
// one) and the destination to scan it into (nil without one), which
// records the value in the probe.
func (r Read) probeColumn() (string, sql.Scanner) {
	if r.Probe == nil {
		return "", nil
	}
	return r.Probe.column, probeValue{r.Probe}
}
