package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/kit"
)

// defaultDB is the --db value when none is given: a SQLite file in the
// working directory.
const defaultDB = "./kit.db"

// openDB turns a --db value into the database part of a kit.Config:
// SQLitePath for a SQLite path, "file:" URI or ":memory:NAME"; Config.DB
// for a postgres:// URL, opened with pgx's database/sql driver in
// simple-protocol mode (see internal/pgopen). openKit closes such a DB
// after the Kit (kit never closes a DB it was given).
func openDB(dsn string) (kit.Config, error) {
	switch {
	case dsn == "":
		return kit.Config{}, errors.New("--db is empty; give a SQLite path such as ./kit.db or a postgres:// URL")
	case pgopen.IsDSN(dsn):
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		db, err := pgopen.Open(ctx, dsn, pgopen.Options{})
		if err != nil {
			return kit.Config{}, err
		}
		return kit.Config{DB: db}, nil
	case strings.HasPrefix(dsn, "file:"), strings.HasPrefix(dsn, ":memory:"):
		return kit.Config{SQLitePath: dsn}, nil
	}
	if dir := filepath.Dir(dsn); !isDir(dir) {
		return kit.Config{}, fmt.Errorf("--db %s: folder %s does not exist", dsn, dir)
	}
	return kit.Config{SQLitePath: dsn}, nil
}

// isDir reports whether p is a folder.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// openKit opens the database named by dsn and starts a Kit on it with the
// rest of cfg, under ctx. closeKit closes the Kit and anything openDB
// opened.
func openKit(ctx context.Context, dsn string, cfg kit.Config) (k *kit.Kit, closeKit func() error, err error) {
	db, err := openDB(dsn)
	if err != nil {
		return nil, nil, err
	}
	cfg.DB, cfg.SQLitePath = db.DB, db.SQLitePath
	k, err = kit.Open(ctx, cfg)
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
