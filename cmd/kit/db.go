package main

import (
	"errors"
	"strings"

	"github.com/collectionkit/kit/kit"
)

// defaultDB is the --db value when none is given: a SQLite file in the
// working directory.
const defaultDB = "./kit.db"

// openDB turns a --db value into the database part of a kit.Config: a
// SQLite path (or "file:" URI) for now. Every command opens its database
// here, so another engine is one more case: open a *bun.DB, set
// Config.DB, and set Config's close function in openKit (kit never closes
// a DB it was given).
func openDB(dsn string) (kit.Config, error) {
	switch {
	case dsn == "":
		return kit.Config{}, errors.New("--db is empty; give a SQLite path such as ./kit.db")
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return kit.Config{}, errors.New("PostgreSQL support arrives with the PostgreSQL issue; use a SQLite path")
	default:
		return kit.Config{SQLitePath: dsn}, nil
	}
}

// openKit opens the database named by dsn and starts a Kit on it with the
// rest of cfg. closeKit closes the Kit and anything openDB opened.
func openKit(dsn string, cfg kit.Config) (k *kit.Kit, closeKit func() error, err error) {
	db, err := openDB(dsn)
	if err != nil {
		return nil, nil, err
	}
	cfg.DB, cfg.SQLitePath = db.DB, db.SQLitePath
	k, err = kit.New(cfg)
	if err != nil {
		if cfg.DB != nil {
			cfg.DB.Close()
		}
		return nil, nil, err
	}
	closeKit = func() error {
		err := k.Close()
		if cfg.DB != nil {
			err = errors.Join(err, cfg.DB.Close())
		}
		return err
	}
	return k, closeKit, nil
}
