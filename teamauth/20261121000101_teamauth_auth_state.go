package teamauth

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// registerAuthStateMigration adds the migration
// 20261121000101_teamauth_auth_state, whose Up creates kit_auth_state and
// the triggers that count every change to kit_users, kit_teams,
// kit_members and kit_tokens (as [Store.CreateTables] does, and like it
// leaving an existing counter alone), and whose Down drops them. It follows
// 20261121000100_teamauth_tables, so a database made by that migration
// alone gets the counter when the migrator runs again.
//
// bun/migrate names a Go migration after the file that registers it; that
// is why this function lives in a file of its own.
func registerAuthStateMigration(m *migrate.Migrations) {
	m.MustRegister(createAuthState, dropAuthState)
}

// createAuthState creates kit_auth_state and its triggers in one
// transaction.
func createAuthState(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return createAuthStateIn(ctx, tx)
	})
}

// dropAuthState drops kit_auth_state and its triggers in one transaction.
func dropAuthState(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return dropAuthStateIn(ctx, tx)
	})
}
