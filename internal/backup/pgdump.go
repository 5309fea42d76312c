package backup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
)

// ErrNoPgDump: the pg_dump (or pg_restore) binary was not found.
var ErrNoPgDump = errors.New("backup: pg_dump was not found: install the PostgreSQL client tools of the server's version, or name the binary")

// pgConn splits a postgres:// URL into the connection string pg_dump
// takes and the schema its search_path names ("" for none): libpq knows
// no search_path parameter, so it becomes --schema.
func pgConn(dsn string) (string, string, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", "", fmt.Errorf("backup: %q is not a postgres:// URL", redact(dsn))
	}
	q := u.Query()
	schema := q.Get("search_path")
	q.Del("search_path")
	u.RawQuery = q.Encode()
	if i := strings.IndexByte(schema, ','); i >= 0 {
		schema = schema[:i]
	}
	return u.String(), strings.TrimSpace(schema), nil
}

// redact drops a URL's password.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(a URL that does not parse)"
	}
	return u.Redacted()
}

// PgDump runs bin (default "pg_dump", looked up on PATH) to write the
// database of dsn to path in the custom format; a search_path in dsn
// dumps that schema only (--schema).
func PgDump(ctx context.Context, bin, dsn, path string) error {
	conn, schema, err := pgConn(dsn)
	if err != nil {
		return err
	}
	args := []string{"--format=custom", "--no-owner", "--file", path}
	if schema != "" {
		args = append(args, "--schema="+schema)
	}
	return runTool(ctx, bin, "pg_dump", append(args, conn))
}

// PgRestore runs bin (default "pg_restore") to put the dump at path into
// the database of dsn; clean drops the objects the dump holds first
// (--clean --if-exists).
func PgRestore(ctx context.Context, bin, dsn, path string, clean bool) error {
	conn, _, err := pgConn(dsn)
	if err != nil {
		return err
	}
	args := []string{"--no-owner", "--exit-on-error", "--single-transaction", "--dbname", conn}
	if clean {
		args = append(args, "--clean", "--if-exists")
	}
	return runTool(ctx, bin, "pg_restore", append(args, path))
}

func runTool(ctx context.Context, bin, tool string, args []string) error {
	if bin == "" {
		bin = tool
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		if tool == "pg_dump" {
			return fmt.Errorf("%w (%v)", ErrNoPgDump, err)
		}
		return fmt.Errorf("backup: %s was not found: %w", tool, err)
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, p, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("backup: %s: %w: %s", tool, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
