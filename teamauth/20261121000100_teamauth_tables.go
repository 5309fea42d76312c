package teamauth

import "github.com/uptrace/bun/migrate"

// RegisterMigrations adds to m kit's identity migrations, in order:
//
//   - 20261121000100_teamauth_tables, whose Up creates kit_users,
//     kit_teams, kit_members and kit_tokens exactly as [Store.CreateTables]
//     does (and, like it, leaves existing tables alone) and whose Down
//     drops them;
//   - 20261121000101_teamauth_auth_state, whose Up creates kit_auth_state
//     and the triggers that keep the Store's authorization cache correct
//     (see "Caching" in the package documentation) and whose Down drops
//     them;
//   - 20261121000102_teamauth_sessions, whose Up creates kit_passwords and
//     kit_sessions with the kit_auth_state triggers of kit_sessions, and
//     whose Down drops them.
//
// Run them with a bun/migrate Migrator, which takes a lock so that several
// processes starting at once migrate only once. They use the migrator's
// database, not the Store's.
//
// bun/migrate names a Go migration after the file that registers it; that
// is why this file carries the first migration's name, and the second
// migration is registered from a file carrying its own.
func (s *Store) RegisterMigrations(m *migrate.Migrations) {
	m.MustRegister(createTables, dropTables)
	registerAuthStateMigration(m)
	registerSessionsMigration(m)
}
