package teamauth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/sqlexec"
)

// Store is the default [Directory]: users, teams, members and tokens in
// kit's own tables kit_users, kit_teams, kit_members and kit_tokens, on
// SQLite or PostgreSQL through bun. It also implements [TokenVerifier], so
// an [Auth] whose Directory is a Store accepts bearer tokens by default.
//
// The tables must exist before use: call [Store.CreateTables], or run the
// migrations added by [Store.RegisterMigrations]. A Store is safe for
// concurrent use.
//
// A Store caches what [Store.UserByToken] and [Store.TeamAndMembership]
// find, and serves it only while no user, team, membership or token has
// changed since, in any process (see "Caching" in the package
// documentation).
type Store struct {
	db  *bun.DB
	run *sqlexec.Runner
	now func() time.Time // the clock; tests replace it

	// PasswordParams are the argon2id parameters new password hashes are
	// made with. The zero value means DefaultPasswordParams. Set before
	// use.
	PasswordParams PasswordParams
	// PasswordPolicy is what SetPassword requires of a new password. The
	// zero value is the default policy (see PasswordPolicy). Set before
	// use.
	PasswordPolicy PasswordPolicy
	// SessionLifetimes are the lifetimes of the sessions CreateSession starts. The
	// zero value means the defaults (see SessionLifetimes). Set before use.
	SessionLifetimes SessionLifetimes

	uncached bool // skip the cache (benchmarks compare); set before use
	tokens   versionedMap[string, tokenEntry]
	teams    versionedMap[teamKey, teamEntry]
	sessions versionedMap[string, sessionEntry]

	dummyOnce sync.Once
	dummy     string // a hash verified against for unknown emails
}

var (
	_ Directory     = (*Store)(nil)
	_ TokenVerifier = (*Store)(nil)
)

// NewStore returns a Store on db.
func NewStore(db *bun.DB) *Store {
	return &Store{db: db, run: sqlexec.New(db), now: time.Now}
}

// clock returns the current time in UTC, at the microsecond precision
// both SQLite (as bun writes it) and PostgreSQL keep, so that a record
// returned by a create equals the same record read back.
func (s *Store) clock() time.Time {
	return s.now().UTC().Truncate(time.Microsecond)
}

// newID returns a fresh UUIDv7 string.
func newID() (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("teamauth: new id: %w", err)
	}
	return id.String(), nil
}

// The rows of kit's tables. They are kept apart from the public types so
// that those carry no bun tags and the tables can change without changing
// the API.

type userRow struct {
	bun.BaseModel `bun:"table:kit_users,alias:u"`

	ID        string    `bun:"id,pk"`
	Name      string    `bun:"name,notnull"`
	Email     string    `bun:"email,notnull"`
	Role      string    `bun:"role,notnull"`
	Banned    bool      `bun:"banned,notnull"`
	Image     string    `bun:"image,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

func (r *userRow) user() *User {
	return &User{ID: r.ID, Name: r.Name, Email: r.Email, Role: r.Role, Banned: r.Banned,
		Image: r.Image, CreatedAt: r.CreatedAt.UTC()}
}

type teamRow struct {
	bun.BaseModel `bun:"table:kit_teams,alias:t"`

	ID          string         `bun:"id,pk"`
	Name        string         `bun:"name,notnull"`
	Slug        string         `bun:"slug,notnull,unique"`
	Description string         `bun:"description,notnull"`
	AvatarURL   string         `bun:"avatar_url,notnull"`
	Settings    map[string]any `bun:"settings,notnull"`
	CreatedAt   time.Time      `bun:"created_at,notnull"`
}

func (r *teamRow) team() *Team {
	settings := r.Settings
	if settings == nil {
		settings = map[string]any{}
	}
	return &Team{ID: r.ID, Name: r.Name, Slug: r.Slug, Description: r.Description,
		AvatarURL: r.AvatarURL, Settings: settings, CreatedAt: r.CreatedAt.UTC()}
}

type memberRow struct {
	bun.BaseModel `bun:"table:kit_members,alias:m"`

	ID        string    `bun:"id,pk"`
	TeamID    string    `bun:"team_id,notnull,unique:kit_members_team_user"`
	UserID    string    `bun:"user_id,notnull,unique:kit_members_team_user"`
	Role      string    `bun:"role,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

func (r *memberRow) membership() *Membership {
	return &Membership{ID: r.ID, TeamID: r.TeamID, UserID: r.UserID, Role: Role(r.Role),
		CreatedAt: r.CreatedAt.UTC()}
}

type tokenRow struct {
	bun.BaseModel `bun:"table:kit_tokens,alias:k"`

	ID         string     `bun:"id,pk"`
	UserID     string     `bun:"user_id,notnull"`
	Name       string     `bun:"name,notnull"`
	Hash       string     `bun:"token_hash,notnull,unique"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
}

func (r *tokenRow) token() *Token {
	return &Token{ID: r.ID, UserID: r.UserID, Name: r.Name, CreatedAt: r.CreatedAt.UTC(),
		LastUsedAt: utcPtr(r.LastUsedAt), RevokedAt: utcPtr(r.RevokedAt)}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// CreateTables creates kit_users, kit_teams, kit_members and kit_tokens and
// their indexes when they do not exist yet, and kit_auth_state with the
// triggers that count every change to those tables for the Store's cache,
// in one transaction. Running it again changes nothing. Several processes
// sharing one PostgreSQL database should rather run the migrations of
// [Store.RegisterMigrations], which bun/migrate serializes with a lock.
func (s *Store) CreateTables(ctx context.Context) error {
	return createTablesAndAuthState(ctx, s.db)
}

// createTables creates the identity tables in one transaction: the Up of
// the first migration.
func createTables(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return createTablesIn(ctx, tx)
	})
}

// createTablesAndAuthState runs, in one transaction, the DDL of both
// migrations: what CreateTables does.
func createTablesAndAuthState(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := createTablesIn(ctx, tx); err != nil {
			return err
		}
		if err := createAuthStateIn(ctx, tx); err != nil {
			return err
		}
		return createSessionsIn(ctx, tx)
	})
}

func createTablesIn(ctx context.Context, db bun.IDB) error {
	tables := []struct {
		model any
		fks   []string
	}{
		{model: (*userRow)(nil)},
		{model: (*teamRow)(nil)},
		{model: (*memberRow)(nil), fks: []string{
			`("team_id") REFERENCES "kit_teams" ("id") ON DELETE CASCADE`,
			`("user_id") REFERENCES "kit_users" ("id") ON DELETE CASCADE`,
		}},
		{model: (*tokenRow)(nil), fks: []string{
			`("user_id") REFERENCES "kit_users" ("id") ON DELETE CASCADE`,
		}},
	}
	for _, t := range tables {
		q := db.NewCreateTable().Model(t.model).IfNotExists()
		for _, fk := range t.fks {
			q = q.ForeignKey(fk)
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("teamauth: create tables: %w", err)
		}
	}
	indexes := []struct {
		model  any
		name   string
		column string
	}{
		{(*memberRow)(nil), "kit_members_user_id_idx", "user_id"},
		{(*tokenRow)(nil), "kit_tokens_user_id_idx", "user_id"},
	}
	for _, ix := range indexes {
		if _, err := db.NewCreateIndex().Model(ix.model).Index(ix.name).Column(ix.column).
			IfNotExists().Exec(ctx); err != nil {
			return fmt.Errorf("teamauth: create index %s: %w", ix.name, err)
		}
	}
	return nil
}

// dropTables drops kit's identity tables, dependents first, in one
// transaction.
func dropTables(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, model := range []any{(*tokenRow)(nil), (*memberRow)(nil), (*teamRow)(nil), (*userRow)(nil)} {
			if _, err := tx.NewDropTable().Model(model).IfExists().Exec(ctx); err != nil {
				return fmt.Errorf("teamauth: drop tables: %w", err)
			}
		}
		return nil
	})
}

// CreateTeam stores a new team and returns it as stored.
//
// Empty fields get defaults: ID a fresh UUIDv7 (a given ID must be a UUID,
// else ErrInvalidID), Slug one made from Name, Name the Slug, Settings an
// empty map, CreatedAt now. A slug that breaks the slug rules is
// ErrInvalidSlug; a slug another team has is ErrSlugTaken.
func (s *Store) CreateTeam(ctx context.Context, t Team) (*Team, error) {
	if t.Slug == "" {
		t.Slug = slugify(t.Name)
	}
	if !validSlug(t.Slug) {
		return nil, ErrInvalidSlug
	}
	if t.Name == "" {
		t.Name = t.Slug
	}
	if t.ID == "" {
		id, err := newID()
		if err != nil {
			return nil, err
		}
		t.ID = id
	} else if id, ok := canonicalUUID(t.ID); ok {
		t.ID = id
	} else {
		return nil, ErrInvalidID
	}
	if t.Settings == nil {
		t.Settings = map[string]any{}
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = s.clock()
	}
	row := &teamRow{ID: t.ID, Name: t.Name, Slug: t.Slug, Description: t.Description,
		AvatarURL: t.AvatarURL, Settings: t.Settings, CreatedAt: t.CreatedAt.UTC()}
	if _, err := s.db.NewInsert().Model(row).Exec(ctx); err != nil {
		// The unique constraint on slug is the arbiter (a check before the
		// insert would race); which driver error it raises differs per
		// database, so ask the database whether the slug is now taken.
		if taken, qerr := s.db.NewSelect().Model((*teamRow)(nil)).
			Where("t.slug = ?", t.Slug).Exists(ctx); qerr == nil && taken {
			return nil, ErrSlugTaken
		}
		return nil, fmt.Errorf("teamauth: create team: %w", err)
	}
	return row.team(), nil
}

// CreateUser stores a new user and returns it as stored. An empty ID gets a
// fresh UUIDv7 (a given ID is kept as is, so a host may mirror ids from its
// identity provider); an empty CreatedAt gets now. Role must be "" or
// UserRoleAdmin, else ErrInvalidRole. An email another user has (compared
// without regard to case) is ErrEmailTaken: the email is what signs in.
func (s *Store) CreateUser(ctx context.Context, u User) (*User, error) {
	if u.Role != "" && u.Role != UserRoleAdmin {
		return nil, ErrInvalidRole
	}
	if u.Email != "" {
		if _, err := s.UserByEmail(ctx, u.Email); err == nil {
			return nil, ErrEmailTaken
		} else if !errors.Is(err, ErrUserNotFound) {
			return nil, err
		}
	}
	if u.ID == "" {
		id, err := newID()
		if err != nil {
			return nil, err
		}
		u.ID = id
	}
	if u.CreatedAt.IsZero() {
		u.CreatedAt = s.clock()
	}
	row := &userRow{ID: u.ID, Name: u.Name, Email: u.Email, Role: u.Role, Banned: u.Banned,
		Image: u.Image, CreatedAt: u.CreatedAt.UTC()}
	if _, err := s.db.NewInsert().Model(row).Exec(ctx); err != nil {
		if u.Email != "" {
			// Another user with this email committed between the check
			// and the insert: kit_users_email_key refused it.
			if _, qerr := s.UserByEmail(ctx, u.Email); qerr == nil {
				return nil, ErrEmailTaken
			}
		}
		return nil, fmt.Errorf("teamauth: create user: %w", err)
	}
	return row.user(), nil
}

// AddMember makes the user a member of the team (by team id) with role, or
// changes the role when the user is a member already, and returns the
// membership. An unknown team is ErrTeamNotFound, an unknown user
// ErrUserNotFound, a role other than owner, admin or member ErrInvalidRole.
func (s *Store) AddMember(ctx context.Context, teamID, userID string, role Role) (*Membership, error) {
	if !role.Valid() {
		return nil, ErrInvalidRole
	}
	if err := s.mustExist(ctx, (*teamRow)(nil), "t.id = ?", teamID, ErrTeamNotFound); err != nil {
		return nil, err
	}
	if err := s.mustExist(ctx, (*userRow)(nil), "u.id = ?", userID, ErrUserNotFound); err != nil {
		return nil, err
	}
	id, err := newID()
	if err != nil {
		return nil, err
	}
	row := &memberRow{ID: id, TeamID: teamID, UserID: userID, Role: string(role), CreatedAt: s.clock()}
	_, err = s.db.NewInsert().Model(row).
		On("CONFLICT (team_id, user_id) DO UPDATE").
		Set("role = EXCLUDED.role").
		Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("teamauth: add member: %w", err)
	}
	return s.Membership(ctx, teamID, userID)
}

// mustExist returns notFound unless a row of model matches where.
func (s *Store) mustExist(ctx context.Context, model any, where string, arg any, notFound error) error {
	ok, err := s.db.NewSelect().Model(model).Where(where, arg).Exists(ctx)
	if err != nil {
		return fmt.Errorf("teamauth: lookup: %w", err)
	}
	if !ok {
		return notFound
	}
	return nil
}

// RemoveMember ends the user's membership in the team (by team id), or
// returns ErrNotMember when there is none.
func (s *Store) RemoveMember(ctx context.Context, teamID, userID string) error {
	res, err := s.db.NewDelete().Model((*memberRow)(nil)).
		Where("team_id = ?", teamID).Where("user_id = ?", userID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("teamauth: remove member: %w", err)
	}
	return affected(res, ErrNotMember)
}

// SetBanned sets or clears the user's Banned flag, or returns
// ErrUserNotFound. A ban ends every session of the user, in the same
// transaction; an unban does not bring them back.
func (s *Store) SetBanned(ctx context.Context, userID string, banned bool) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*userRow)(nil)).
			Set("banned = ?", banned).Where("id = ?", userID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("teamauth: set banned: %w", err)
		}
		if err := affected(res, ErrUserNotFound); err != nil {
			return err
		}
		if banned {
			return s.endSessionsIn(ctx, tx, userID)
		}
		return nil
	})
}

// affected returns notFound when res touched no row.
func affected(res sql.Result, notFound error) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("teamauth: rows affected: %w", err)
	}
	if n == 0 {
		return notFound
	}
	return nil
}

// Teams returns every team, oldest first.
func (s *Store) Teams(ctx context.Context) ([]Team, error) {
	var rows []teamRow
	if err := s.db.NewSelect().Model(&rows).Order("t.created_at", "t.id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("teamauth: list teams: %w", err)
	}
	return teams(rows), nil
}

// TeamsOfUser returns the teams the user is a member of, oldest first.
func (s *Store) TeamsOfUser(ctx context.Context, userID string) ([]Team, error) {
	var rows []teamRow
	err := s.db.NewSelect().Model(&rows).
		Join("JOIN kit_members AS m ON m.team_id = t.id").
		Where("m.user_id = ?", userID).
		Order("t.created_at", "t.id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("teamauth: list teams of user: %w", err)
	}
	return teams(rows), nil
}

func teams(rows []teamRow) []Team {
	out := make([]Team, len(rows))
	for i := range rows {
		out[i] = *rows[i].team()
	}
	return out
}

// Users returns every user, oldest first.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	var rows []userRow
	if err := s.db.NewSelect().Model(&rows).Order("u.created_at", "u.id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("teamauth: list users: %w", err)
	}
	out := make([]User, len(rows))
	for i := range rows {
		out[i] = *rows[i].user()
	}
	return out, nil
}

// Members returns the memberships of the team (by team id), oldest first.
func (s *Store) Members(ctx context.Context, teamID string) ([]Membership, error) {
	var rows []memberRow
	err := s.db.NewSelect().Model(&rows).Where("m.team_id = ?", teamID).
		Order("m.created_at", "m.id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("teamauth: list members: %w", err)
	}
	out := make([]Membership, len(rows))
	for i := range rows {
		out[i] = *rows[i].membership()
	}
	return out, nil
}
