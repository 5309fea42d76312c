package teamauth

import "github.com/uptrace/bun/migrate"

// RegisterMigrations adds to m the migration 20261121000100_teamauth_tables,
// whose Up creates kit_users, kit_teams, kit_members and kit_tokens exactly
// as [Store.CreateTables] does (and, like it, leaves existing tables alone)
// and whose Down drops them. Run it with a bun/migrate Migrator, which takes
// a lock so that several processes starting at once migrate only once. It
// uses the migrator's database, not the Store's.
//
// bun/migrate names a Go migration after the file that registers it; that
// is why this file carries the migration's name.
func (s *Store) RegisterMigrations(m *migrate.Migrations) {
	m.MustRegister(createTables, dropTables)
}
