package teamauth

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// registerSessionsMigration adds the migration
// 20261121000102_teamauth_sessions, whose Up creates kit_passwords (a
// user's argon2id hash) and kit_sessions (sign-in sessions, stored as
// hashes) with the triggers that count every change to kit_sessions in
// kit_auth_state, as the triggers of 20261121000101_teamauth_auth_state do
// for the other identity tables (a renewal, which writes last_seen_at
// alone, does not count). Its Down drops them.
//
// bun/migrate names a Go migration after the file that registers it; that
// is why this function lives in a file of its own.
func registerSessionsMigration(m *migrate.Migrations) {
	m.MustRegister(createSessions, dropSessions)
}

func createSessions(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return createSessionsIn(ctx, tx)
	})
}

func dropSessions(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return dropSessionsIn(ctx, tx)
	})
}

// createSessionsIn creates kit_passwords, kit_sessions, its index and its
// kit_auth_state triggers on db (a transaction), leaving existing tables
// alone. kit_auth_state must exist.
func createSessionsIn(ctx context.Context, db bun.IDB) error {
	for _, model := range []any{(*passwordRow)(nil), (*sessionRow)(nil)} {
		if _, err := db.NewCreateTable().Model(model).IfNotExists().
			ForeignKey(`("user_id") REFERENCES "kit_users" ("id") ON DELETE CASCADE`).Exec(ctx); err != nil {
			return fmt.Errorf("teamauth: create session tables: %w", err)
		}
	}
	if _, err := db.NewCreateIndex().Model((*sessionRow)(nil)).Index("kit_sessions_user_id_idx").
		Column("user_id").IfNotExists().Exec(ctx); err != nil {
		return fmt.Errorf("teamauth: create index kit_sessions_user_id_idx: %w", err)
	}
	var stmts []string
	if db.Dialect().Name() == dialect.PG {
		stmts = append(stmts, pgAuthStateFunction,
			`DROP TRIGGER IF EXISTS kit_auth_state_bump ON kit_sessions`,
			pgAuthStateTrigger("kit_sessions"))
	} else {
		for _, event := range []string{"INSERT", "UPDATE", "DELETE"} {
			stmts = append(stmts, `DROP TRIGGER IF EXISTS `+sqliteAuthStateTriggerName("kit_sessions", event),
				sqliteAuthStateTrigger("kit_sessions", event))
		}
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("teamauth: create kit_sessions triggers: %w", err)
		}
	}
	return createEmailKeyIn(ctx, db)
}

// createEmailKeyIn makes non-empty emails unique without regard to case,
// so two users created at once cannot share the email that signs them in.
// A database that already holds such a pair is refused with the emails to
// fix, instead of an index error.
func createEmailKeyIn(ctx context.Context, db bun.IDB) error {
	var dups []string
	if err := db.NewSelect().Table("kit_users").ColumnExpr("lower(email)").
		Where("email <> ''").GroupExpr("lower(email)").Having("count(*) > 1").
		OrderExpr("lower(email)").Limit(10).Scan(ctx, &dups); err != nil {
		return fmt.Errorf("teamauth: look for duplicate emails: %w", err)
	}
	if len(dups) > 0 {
		return fmt.Errorf("teamauth: several users share the email %s (compared without regard to case): "+
			"give each user an email of their own, or clear the others, then start again", strings.Join(dups, ", "))
	}
	if _, err := db.ExecContext(ctx,
		`CREATE UNIQUE INDEX IF NOT EXISTS kit_users_email_key ON kit_users (lower(email)) WHERE email <> ''`); err != nil {
		return fmt.Errorf("teamauth: create index kit_users_email_key: %w", err)
	}
	return nil
}

// dropSessionsIn drops kit_sessions (and with it its triggers) and
// kit_passwords, and the unique email index.
func dropSessionsIn(ctx context.Context, db bun.IDB) error {
	if _, err := db.ExecContext(ctx, `DROP INDEX IF EXISTS kit_users_email_key`); err != nil {
		return fmt.Errorf("teamauth: drop index kit_users_email_key: %w", err)
	}
	for _, model := range []any{(*sessionRow)(nil), (*passwordRow)(nil)} {
		if _, err := db.NewDropTable().Model(model).IfExists().Exec(ctx); err != nil {
			return fmt.Errorf("teamauth: drop session tables: %w", err)
		}
	}
	return nil
}
