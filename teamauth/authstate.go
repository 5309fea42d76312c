package teamauth

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// kit_auth_state holds one row, id 1, whose version counts the changes to
// kit_users, kit_teams, kit_members and kit_tokens. Triggers on those
// tables increment it in the transaction of the change, whoever makes it:
// this Store, another process, or SQL the host runs by hand. The Store's
// cache (cache.go) keeps a lookup only as long as the version it was read
// under is the current one.
//
// Writes of kit_tokens.last_used_at alone do not count: UserByToken records
// a token's use once a minute, which would otherwise empty the cache every
// minute for every token in use.

// authStateTriggerTables are the tables whose changes count.
var authStateTriggerTables = []string{"kit_users", "kit_teams", "kit_members", "kit_tokens"}

// tokenColumnsThatCount are the columns of kit_tokens an UPDATE must name
// to count: all of them but last_used_at.
const tokenColumnsThatCount = "id, user_id, name, token_hash, created_at, revoked_at"

// sessionColumnsThatCount are the columns of kit_sessions an UPDATE must
// name to count: all of them but last_seen_at, which every use of a session
// renews (once a minute).
const sessionColumnsThatCount = "id, user_id, session_hash, created_at, expires_at, idle_seconds, ended_at"

// updateOf returns the UPDATE event of table's trigger: for the tables
// with a column written on every use, only the other columns count.
func updateOf(table string) string {
	switch table {
	case "kit_tokens":
		return "UPDATE OF " + tokenColumnsThatCount
	case "kit_sessions":
		return "UPDATE OF " + sessionColumnsThatCount
	}
	return "UPDATE"
}

// createAuthStateIn creates kit_auth_state, its row and the triggers on db
// (a transaction), leaving an existing counter alone. Running it again
// changes nothing: the triggers are dropped and created again with the
// same definition, in the same transaction, so no change goes uncounted.
//
// A new counter starts at the current time in microseconds rather than 0,
// so that a counter dropped and created again (a migration rolled back and
// applied again while kit runs) never repeats a version an earlier one had
// and a cache entry of that earlier counter could be taken for current.
func createAuthStateIn(ctx context.Context, db bun.IDB) error {
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS kit_auth_state (id INTEGER PRIMARY KEY, version BIGINT NOT NULL)`,
		`INSERT INTO kit_auth_state (id, version) VALUES (1, ` + strconv.FormatInt(time.Now().UnixMicro(), 10) + `) ON CONFLICT (id) DO NOTHING`,
	}
	if db.Dialect().Name() == dialect.PG {
		stmts = append(stmts, pgAuthStateFunction)
		for _, table := range authStateTriggerTables {
			stmts = append(stmts,
				`DROP TRIGGER IF EXISTS kit_auth_state_bump ON `+table,
				pgAuthStateTrigger(table))
		}
	} else {
		for _, table := range authStateTriggerTables {
			for _, event := range []string{"INSERT", "UPDATE", "DELETE"} {
				name := sqliteAuthStateTriggerName(table, event)
				stmts = append(stmts,
					`DROP TRIGGER IF EXISTS `+name,
					sqliteAuthStateTrigger(table, event))
			}
		}
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("teamauth: create kit_auth_state: %w", err)
		}
	}
	return nil
}

// dropAuthStateIn drops the triggers (those of kit_sessions included), the
// function (PostgreSQL) and kit_auth_state. The tables the triggers are on
// must exist, except kit_sessions.
func dropAuthStateIn(ctx context.Context, db bun.IDB) error {
	var stmts []string
	if db.Dialect().Name() == dialect.PG {
		for _, table := range authStateTriggerTables {
			stmts = append(stmts, `DROP TRIGGER IF EXISTS kit_auth_state_bump ON `+table)
		}
		// CASCADE drops the trigger of kit_sessions too, when
		// 20261121000102_teamauth_sessions made one.
		stmts = append(stmts, `DROP FUNCTION IF EXISTS kit_auth_state_bump() CASCADE`)
	} else {
		for _, table := range append(authStateTriggerTables, "kit_sessions") {
			for _, event := range []string{"INSERT", "UPDATE", "DELETE"} {
				stmts = append(stmts, `DROP TRIGGER IF EXISTS `+sqliteAuthStateTriggerName(table, event))
			}
		}
	}
	stmts = append(stmts, `DROP TABLE IF EXISTS kit_auth_state`)
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("teamauth: drop kit_auth_state: %w", err)
		}
	}
	return nil
}

// pgAuthStateFunction increments the counter in the schema of the table
// whose trigger fired (TG_TABLE_SCHEMA), not in whatever schema the
// session's search_path finds first: a host connected with another
// search_path, or several kit schemas in one database, still count in the
// right place.
const pgAuthStateFunction = `CREATE OR REPLACE FUNCTION kit_auth_state_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('UPDATE %I.kit_auth_state SET version = version + 1 WHERE id = 1', TG_TABLE_SCHEMA);
	RETURN NULL;
END
$$`

// pgAuthStateTrigger is the statement-level trigger of table: one increment
// per statement, however many rows it touches. TRUNCATE counts too (it
// fires no DELETE trigger).
func pgAuthStateTrigger(table string) string {
	return `CREATE TRIGGER kit_auth_state_bump AFTER INSERT OR ` + updateOf(table) + ` OR DELETE OR TRUNCATE ON ` + table +
		` FOR EACH STATEMENT EXECUTE FUNCTION kit_auth_state_bump()`
}

// sqliteAuthStateTriggerName names table's trigger for event, such as
// kit_users_auth_state_insert.
func sqliteAuthStateTriggerName(table, event string) string {
	return table + "_auth_state_" + strings.ToLower(event)
}

// sqliteAuthStateTrigger is the row-level trigger of table for event
// (SQLite has no statement-level triggers).
func sqliteAuthStateTrigger(table, event string) string {
	on := event
	if event == "UPDATE" {
		on = updateOf(table)
	}
	return `CREATE TRIGGER ` + sqliteAuthStateTriggerName(table, event) + ` AFTER ` + on + ` ON ` + table +
		` BEGIN UPDATE kit_auth_state SET version = version + 1 WHERE id = 1; END`
}
