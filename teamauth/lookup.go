package teamauth

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/collectionkit/kit/internal/wire"
)

// The lookups every request makes (token, team, membership) run as
// prepared statements with driver arguments through sqlexec instead of
// bun's query builder: they are the hottest queries in kit.

// TeamMembershipFinder is an optional fast path of a [Directory]: the team
// by id or slug and the user's membership in it in one lookup. The
// membership is nil (with a nil error) for a non-member; the team
// ErrTeamNotFound when none matches. [Auth] uses it when the Directory
// implements it; [*Store] does.
type TeamMembershipFinder interface {
	TeamAndMembership(ctx context.Context, idOrSlug, userID string) (*Team, *Membership, error)
}

var _ TeamMembershipFinder = (*Store)(nil)

const (
	userColumns = `u.id, u.name, u.email, u.role, u.banned, u.image, u.created_at`
	teamColumns = `t.id, t.name, t.slug, t.description, t.avatar_url, t.settings, t.created_at`

	sqlUserByID    = `SELECT ` + userColumns + ` FROM kit_users AS u WHERE u.id = ?`
	sqlUserByToken = `SELECT ` + userColumns + `, k.id, k.revoked_at, k.last_used_at FROM kit_users AS u JOIN kit_tokens AS k ON k.user_id = u.id WHERE k.token_hash = ?`
	sqlTeamByID    = `SELECT ` + teamColumns + ` FROM kit_teams AS t WHERE t.id = ?`
	sqlTeamBySlug  = `SELECT ` + teamColumns + ` FROM kit_teams AS t WHERE t.slug = ?`
	sqlMembership  = `SELECT m.id, m.team_id, m.user_id, m.role, m.created_at FROM kit_members AS m WHERE m.team_id = ? AND m.user_id = ?`

	teamMemberColumns   = teamColumns + `, m.id, m.role, m.created_at`
	sqlTeamMemberByID   = `SELECT ` + teamMemberColumns + ` FROM kit_teams AS t LEFT JOIN kit_members AS m ON m.team_id = t.id AND m.user_id = ? WHERE t.id = ?`
	sqlTeamMemberBySlug = `SELECT ` + teamMemberColumns + ` FROM kit_teams AS t LEFT JOIN kit_members AS m ON m.team_id = t.id AND m.user_id = ? WHERE t.slug = ?`
)

// anyTime reads a timestamp column whatever the driver made of it.
type anyTime struct {
	t     time.Time
	valid bool
}

func (a *anyTime) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		a.valid = false
		return nil
	case time.Time:
		a.t, a.valid = x.UTC(), true
		return nil
	case []byte:
		v = string(x)
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("teamauth: timestamp of type %T", v)
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			a.t, a.valid = t.UTC(), true
			return nil
		}
	}
	return fmt.Errorf("teamauth: cannot read timestamp %q", s)
}

// anyJSON reads a JSON object column (TEXT on SQLite, JSONB on PostgreSQL).
type anyJSON struct{ m map[string]any }

func (j *anyJSON) Scan(v any) error {
	var b []byte
	switch x := v.(type) {
	case nil:
		j.m = map[string]any{}
		return nil
	case []byte:
		b = x
	case string:
		b = []byte(x)
	default:
		return fmt.Errorf("teamauth: settings of type %T", v)
	}
	j.m = map[string]any{}
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, &j.m)
}

func scanUser(dst []any) (*User, []any) {
	u := &User{}
	return u, append(dst, &u.ID, &u.Name, &u.Email, &u.Role, &u.Banned, &u.Image, &createdInto{&u.CreatedAt, &anyTime{}})
}

// createdInto scans a timestamp into a time.Time field.
type createdInto struct {
	dst *time.Time
	tmp *anyTime
}

func (c *createdInto) Scan(v any) error {
	if err := c.tmp.Scan(v); err != nil {
		return err
	}
	*c.dst = c.tmp.t
	return nil
}

func scanTeam(dst []any) (*Team, []any) {
	t := &Team{}
	return t, append(dst, &t.ID, &t.Name, &t.Slug, &t.Description, &t.AvatarURL, &settingsInto{&t.Settings, &anyJSON{}}, &createdInto{&t.CreatedAt, &anyTime{}})
}

type settingsInto struct {
	dst *map[string]any
	tmp *anyJSON
}

func (s *settingsInto) Scan(v any) error {
	if err := s.tmp.Scan(v); err != nil {
		return err
	}
	*s.dst = s.tmp.m
	return nil
}

// Team finds a team by id (a UUID) or slug. A value that is not text (a
// NUL, bytes that are not UTF-8) names no team: ErrTeamNotFound, without
// a lookup.
func (s *Store) Team(ctx context.Context, idOrSlug string) (*Team, error) {
	if wire.TextProblem(idOrSlug) != "" {
		return nil, ErrTeamNotFound
	}
	q, arg := sqlTeamBySlug, idOrSlug
	if id, ok := canonicalUUID(idOrSlug); ok {
		q, arg = sqlTeamByID, id
	}
	t, dst := scanTeam(nil)
	if err := s.run.QueryRowKeyed(ctx, s.db, q, arg).Scan(dst...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrTeamNotFound
		}
		return nil, fmt.Errorf("teamauth: find team: %w", err)
	}
	return t, nil
}

// User finds a user by id. A value that is not text names no user:
// ErrUserNotFound, without a lookup.
func (s *Store) User(ctx context.Context, id string) (*User, error) {
	if wire.TextProblem(id) != "" {
		return nil, ErrUserNotFound
	}
	u, dst := scanUser(nil)
	if err := s.run.QueryRowKeyed(ctx, s.db, sqlUserByID, id).Scan(dst...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrUserNotFound
		}
		return nil, fmt.Errorf("teamauth: find user: %w", err)
	}
	return u, nil
}

// Membership finds the membership of a user in a team (by team id).
func (s *Store) Membership(ctx context.Context, teamID, userID string) (*Membership, error) {
	m := &Membership{}
	var role string
	err := s.run.QueryRowKeyed(ctx, s.db, sqlMembership, teamID, userID).Scan(&m.ID, &m.TeamID, &m.UserID, &role, &createdInto{&m.CreatedAt, &anyTime{}})
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotMember
		}
		return nil, fmt.Errorf("teamauth: find membership: %w", err)
	}
	m.Role = Role(role)
	return m, nil
}

// TeamAndMembership finds a team by id or slug and userID's membership in
// it with one query, or from the Store's cache when no user, team,
// membership or token has changed since it was last read (see "Caching"
// in the package documentation). The team and membership returned are the
// caller's to change. Like Team, a value that is not text names no team.
// So a route value reaching ResolveTeamAndCheckMembership from any route,
// the host's too, answers as a missing team on every engine.
func (s *Store) TeamAndMembership(ctx context.Context, idOrSlug, userID string) (*Team, *Membership, error) {
	if wire.TextProblem(idOrSlug) != "" {
		return nil, nil, ErrTeamNotFound
	}
	q, arg := sqlTeamMemberBySlug, idOrSlug
	if id, ok := canonicalUUID(idOrSlug); ok {
		q, arg = sqlTeamMemberByID, id
	}
	key := teamKey{team: arg, user: userID}
	version, cache := s.currentVersion(ctx)
	if cache {
		if e, ok := s.teams.get(key, version); ok {
			return e.result()
		}
	}
	var mID, mRole sql.NullString
	var mCreated anyTime
	t, dst := scanTeam(nil)
	dst = append(dst, &mID, &mRole, &mCreated)
	if err := s.run.QueryRowKeyed(ctx, s.db, q, userID, arg).Scan(dst...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil, ErrTeamNotFound
		}
		return nil, nil, fmt.Errorf("teamauth: find team and membership: %w", err)
	}
	e := teamEntry{team: *t, member: mID.Valid}
	if e.member {
		e.membership = Membership{ID: mID.String, TeamID: t.ID, UserID: userID, Role: Role(mRole.String), CreatedAt: mCreated.t}
	}
	if cache {
		s.teams.put(key, version, e)
	}
	return e.result()
}

// result returns copies of the entry's team and membership (nil for a
// non-member), so that a caller changing them changes nothing cached.
func (e *teamEntry) result() (*Team, *Membership, error) {
	t := copyTeam(&e.team)
	if !e.member {
		return t, nil, nil
	}
	m := e.membership
	return t, &m, nil
}

// UserByToken returns the user a bearer token belongs to. A malformed,
// unknown or revoked token is ErrInvalidToken. It records the token's last
// use at most once a minute. Like TeamAndMembership it answers from the
// Store's cache while nothing has changed; the user returned is the
// caller's to change.
func (s *Store) UserByToken(ctx context.Context, plaintext string) (*User, error) {
	if !wellFormedToken(plaintext) {
		return nil, ErrInvalidToken
	}
	hash := hashToken(plaintext)
	version, cache := s.currentVersion(ctx)
	if cache {
		if e, ok := s.tokens.get(hash, version); ok {
			recorded, err := s.recordTokenUse(ctx, &e)
			if err != nil {
				return nil, err
			}
			if recorded {
				s.tokens.put(hash, version, e)
			}
			u := e.user
			return &u, nil
		}
	}
	var e tokenEntry
	var revoked, lastUsed anyTime
	u, dst := scanUser(nil)
	dst = append(dst, &e.tokenID, &revoked, &lastUsed)
	if err := s.run.QueryRowKeyed(ctx, s.db, sqlUserByToken, hash).Scan(dst...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrInvalidToken
		}
		return nil, fmt.Errorf("teamauth: find token: %w", err)
	}
	if revoked.valid {
		return nil, ErrInvalidToken
	}
	e.user, e.lastUsed = *u, lastUsed.t
	if _, err := s.recordTokenUse(ctx, &e); err != nil {
		return nil, err
	}
	if cache {
		s.tokens.put(hash, version, e)
	}
	return u, nil
}

// recordTokenUse writes now as the token's last use when the last one
// recorded is a minute old or more (or there is none), keeps it in e and
// reports that it did. The write changes last_used_at only, which does not
// count as a change for the cache.
func (s *Store) recordTokenUse(ctx context.Context, e *tokenEntry) (bool, error) {
	now := s.clock()
	if !e.lastUsed.IsZero() && now.Sub(e.lastUsed) < lastUsedEvery {
		return false, nil
	}
	if _, err := s.db.NewUpdate().Model((*tokenRow)(nil)).
		Set("last_used_at = ?", now).Where("id = ?", e.tokenID).Exec(ctx); err != nil {
		return false, fmt.Errorf("teamauth: record token use: %w", err)
	}
	e.lastUsed = now
	return true, nil
}
