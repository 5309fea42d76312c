package teamauth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// The Store's account management: what the accounts routes ([Accounts])
// and the command line change besides creating.

// TeamMembership is one team of a user with the user's role in it.
type TeamMembership struct {
	Team
	Role Role `json:"role"`
}

// MembershipsOfUser returns the teams the user is a member of with the
// user's role in each, oldest team first.
func (s *Store) MembershipsOfUser(ctx context.Context, userID string) ([]TeamMembership, error) {
	var rows []struct {
		teamRow `bun:",extend"`
		Role    string `bun:"member_role"`
	}
	err := s.db.NewSelect().Model(&rows).ColumnExpr("t.*").ColumnExpr("m.role AS member_role").
		Join("JOIN kit_members AS m ON m.team_id = t.id").
		Where("m.user_id = ?", userID).
		Order("t.created_at", "t.id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("teamauth: list memberships of user: %w", err)
	}
	out := make([]TeamMembership, len(rows))
	for i := range rows {
		out[i] = TeamMembership{Team: *rows[i].teamRow.team(), Role: Role(rows[i].Role)}
	}
	return out, nil
}

// UserPatch is a change to a user: nil fields stay as they are.
type UserPatch struct {
	Name   *string
	Image  *string
	Role   *string // "" or UserRoleAdmin
	Banned *bool   // a ban ends the user's sessions
}

// UpdateUser applies p to the user and returns the user as stored. An
// unknown user is ErrUserNotFound; a Role other than "" or "admin"
// ErrInvalidRole. A ban ends every session of the user in the same
// transaction.
func (s *Store) UpdateUser(ctx context.Context, userID string, p UserPatch) (*User, error) {
	if p.Role != nil && *p.Role != "" && *p.Role != UserRoleAdmin {
		return nil, ErrInvalidRole
	}
	if p.Name == nil && p.Image == nil && p.Role == nil && p.Banned == nil {
		// Nothing to change. Checked outside a transaction: on SQLite a
		// read through s.db inside one waits for the transaction's own
		// write lock until the busy timeout.
		if err := s.mustExist(ctx, (*userRow)(nil), "u.id = ?", userID, ErrUserNotFound); err != nil {
			return nil, err
		}
		return s.User(ctx, userID)
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewUpdate().Model((*userRow)(nil)).Where("id = ?", userID)
		set := false
		if p.Name != nil {
			q, set = q.Set("name = ?", *p.Name), true
		}
		if p.Image != nil {
			q, set = q.Set("image = ?", *p.Image), true
		}
		if p.Role != nil {
			q, set = q.Set("role = ?", *p.Role), true
		}
		if p.Banned != nil {
			q, set = q.Set("banned = ?", *p.Banned), true
		}
		if !set {
			return nil // unreachable: checked above
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return fmt.Errorf("teamauth: update user: %w", err)
		}
		if err := affected(res, ErrUserNotFound); err != nil {
			return err
		}
		if p.Banned != nil && *p.Banned {
			return s.endSessionsIn(ctx, tx, userID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.User(ctx, userID)
}

// TeamPatch is a change to a team: nil fields stay as they are.
type TeamPatch struct {
	Name        *string
	Slug        *string
	Description *string
	AvatarURL   *string
	Settings    map[string]any // replaces the settings when not nil
}

// UpdateTeam applies p to the team (by id) and returns it as stored. An
// unknown team is ErrTeamNotFound; a slug breaking the slug rules
// ErrInvalidSlug, one another team has ErrSlugTaken; an empty or blank
// Name ErrInvalidName.
func (s *Store) UpdateTeam(ctx context.Context, teamID string, p TeamPatch) (*Team, error) {
	q := s.db.NewUpdate().Model((*teamRow)(nil)).Where("id = ?", teamID)
	set := false
	if p.Name != nil {
		if blank(*p.Name) {
			return nil, ErrInvalidName
		}
		q, set = q.Set("name = ?", *p.Name), true
	}
	if p.Slug != nil {
		if !validSlug(*p.Slug) {
			return nil, ErrInvalidSlug
		}
		q, set = q.Set("slug = ?", *p.Slug), true
	}
	if p.Description != nil {
		q, set = q.Set("description = ?", *p.Description), true
	}
	if p.AvatarURL != nil {
		q, set = q.Set("avatar_url = ?", *p.AvatarURL), true
	}
	if p.Settings != nil {
		q, set = q.Set("settings = ?", p.Settings), true
	}
	if set {
		res, err := q.Exec(ctx)
		if err != nil {
			if p.Slug != nil {
				if taken, qerr := s.db.NewSelect().Model((*teamRow)(nil)).
					Where("t.slug = ?", *p.Slug).Where("t.id <> ?", teamID).Exists(ctx); qerr == nil && taken {
					return nil, ErrSlugTaken
				}
			}
			return nil, fmt.Errorf("teamauth: update team: %w", err)
		}
		if err := affected(res, ErrTeamNotFound); err != nil {
			return nil, err
		}
	}
	return s.Team(ctx, teamID)
}

// DeleteTeam deletes the team (by id) with its memberships. An unknown team
// is ErrTeamNotFound. Records of the team in collection tables are not
// kit_teams rows and are not touched here.
func (s *Store) DeleteTeam(ctx context.Context, teamID string) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*memberRow)(nil)).Where("team_id = ?", teamID).Exec(ctx); err != nil {
			return fmt.Errorf("teamauth: delete team members: %w", err)
		}
		res, err := tx.NewDelete().Model((*teamRow)(nil)).Where("id = ?", teamID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("teamauth: delete team: %w", err)
		}
		return affected(res, ErrTeamNotFound)
	})
}

// MemberInfo is a membership with what a member list shows of its user.
type MemberInfo struct {
	ID        string    `json:"id"`
	UserID    string    `json:"userId"`
	Name      string    `json:"name"`
	Image     string    `json:"image"`
	Role      Role      `json:"role"`
	CreatedAt time.Time `json:"createdAt"`
}

// MemberInfos returns the team's members (by team id) with their names and
// images, oldest membership first.
func (s *Store) MemberInfos(ctx context.Context, teamID string) ([]MemberInfo, error) {
	var rows []struct {
		memberRow `bun:",extend"`
		Name      string `bun:"user_name"`
		Image     string `bun:"user_image"`
	}
	err := s.db.NewSelect().Model(&rows).ColumnExpr("m.*").
		ColumnExpr("u.name AS user_name").ColumnExpr("u.image AS user_image").
		Join("JOIN kit_users AS u ON u.id = m.user_id").
		Where("m.team_id = ?", teamID).Order("m.created_at", "m.id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("teamauth: list members: %w", err)
	}
	out := make([]MemberInfo, len(rows))
	for i, r := range rows {
		out[i] = MemberInfo{ID: r.ID, UserID: r.UserID, Name: r.Name, Image: r.Image, Role: Role(r.Role),
			CreatedAt: r.CreatedAt.UTC()}
	}
	return out, nil
}

// MembershipByID returns the membership with the given id in the team (by
// team id). A membership of another team is ErrMemberNotFound, like a
// missing one.
func (s *Store) MembershipByID(ctx context.Context, teamID, memberID string) (*Membership, error) {
	row := new(memberRow)
	err := s.db.NewSelect().Model(row).Where("m.id = ?", memberID).Where("m.team_id = ?", teamID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrMemberNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("teamauth: find membership: %w", err)
	}
	return row.membership(), nil
}

// lockOwners returns how many owners the team has, locking their rows on
// PostgreSQL so that two concurrent changes cannot both take the team's
// last owner away (SQLite transactions here are immediate, so serialized).
func (s *Store) lockOwners(ctx context.Context, tx bun.Tx, teamID string) (int, error) {
	var ids []string
	q := tx.NewSelect().Model((*memberRow)(nil)).Column("m.id").
		Where("m.team_id = ?", teamID).Where("m.role = ?", string(RoleOwner))
	if tx.Dialect().Name() == dialect.PG {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx, &ids); err != nil {
		return 0, fmt.Errorf("teamauth: count owners: %w", err)
	}
	return len(ids), nil
}

// SetMemberRole changes the role of the membership memberID of the team.
// Demoting the team's last owner is ErrLastOwner; a membership of another
// team ErrMemberNotFound; an unknown role ErrInvalidRole. Who may do it is
// the caller's to check (see [Accounts]).
func (s *Store) SetMemberRole(ctx context.Context, teamID, memberID string, role Role) (*Membership, error) {
	if !role.Valid() {
		return nil, ErrInvalidRole
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		m := new(memberRow)
		if err := tx.NewSelect().Model(m).Where("m.id = ?", memberID).Where("m.team_id = ?", teamID).Scan(ctx); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return ErrMemberNotFound
			}
			return fmt.Errorf("teamauth: find membership: %w", err)
		}
		if Role(m.Role) == RoleOwner && role != RoleOwner {
			n, err := s.lockOwners(ctx, tx, teamID)
			if err != nil {
				return err
			}
			if n <= 1 {
				return ErrLastOwner
			}
		}
		if _, err := tx.NewUpdate().Model((*memberRow)(nil)).Set("role = ?", string(role)).
			Where("id = ?", memberID).Exec(ctx); err != nil {
			return fmt.Errorf("teamauth: set member role: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.MembershipByID(ctx, teamID, memberID)
}

// RemoveMembership ends the membership memberID of the team. Removing the
// team's last owner is ErrLastOwner; a membership of another team
// ErrMemberNotFound.
func (s *Store) RemoveMembership(ctx context.Context, teamID, memberID string) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		m := new(memberRow)
		if err := tx.NewSelect().Model(m).Where("m.id = ?", memberID).Where("m.team_id = ?", teamID).Scan(ctx); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return ErrMemberNotFound
			}
			return fmt.Errorf("teamauth: find membership: %w", err)
		}
		if Role(m.Role) == RoleOwner {
			n, err := s.lockOwners(ctx, tx, teamID)
			if err != nil {
				return err
			}
			if n <= 1 {
				return ErrLastOwner
			}
		}
		_, err := tx.NewDelete().Model((*memberRow)(nil)).Where("id = ?", memberID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("teamauth: remove member: %w", err)
		}
		return nil
	})
}

// UserByEmail returns the oldest user whose email is email, compared
// without regard to case, or ErrUserNotFound.
func (s *Store) UserByEmail(ctx context.Context, email string) (*User, error) {
	row := new(userRow)
	err := s.db.NewSelect().Model(row).Where("lower(u.email) = lower(?)", email).Where("u.email <> ''").
		Order("u.created_at", "u.id").Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrUserNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("teamauth: find user by email: %w", err)
	}
	return row.user(), nil
}

// PageQuery asks for one page of a search: Search is a case-insensitive
// substring of a name, email or slug ("" for all); Page starts at 1;
// PageSize is 1 to 100 (default 20).
type PageQuery struct {
	Search   string
	Page     int
	PageSize int
}

func (q PageQuery) limits() (limit, offset int64) {
	limit = int64(q.PageSize)
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 100)
	page := max(int64(q.Page), 1)
	return limit, (page - 1) * limit
}

// likePattern makes a LIKE pattern matching s anywhere, with "%", "_" and
// the escape character taken literally.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + strings.ToLower(r.Replace(s)) + "%"
}

// SearchUsers returns one page of users, oldest first, and how many match.
func (s *Store) SearchUsers(ctx context.Context, q PageQuery) ([]User, int, error) {
	var rows []userRow
	limit, offset := q.limits()
	sel := s.db.NewSelect().Model(&rows)
	if q.Search != "" {
		p := likePattern(q.Search)
		sel = sel.Where(`(lower(u.name) LIKE ? ESCAPE '\' OR lower(u.email) LIKE ? ESCAPE '\')`, p, p)
	}
	total, err := sel.Order("u.created_at", "u.id").Limit(limit).Offset(offset).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("teamauth: search users: %w", err)
	}
	out := make([]User, len(rows))
	for i := range rows {
		out[i] = *rows[i].user()
	}
	return out, int(total), nil
}

// SearchTeams returns one page of teams, oldest first, and how many match.
func (s *Store) SearchTeams(ctx context.Context, q PageQuery) ([]Team, int, error) {
	var rows []teamRow
	limit, offset := q.limits()
	sel := s.db.NewSelect().Model(&rows)
	if q.Search != "" {
		p := likePattern(q.Search)
		sel = sel.Where(`(lower(t.name) LIKE ? ESCAPE '\' OR lower(t.slug) LIKE ? ESCAPE '\')`, p, p)
	}
	total, err := sel.Order("t.created_at", "t.id").Limit(limit).Offset(offset).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("teamauth: search teams: %w", err)
	}
	return teams(rows), int(total), nil
}

// CreateTeamWithOwner creates the team as CreateTeam does and makes the
// user its owner. An unknown user is ErrUserNotFound, and no team is left
// behind.
func (s *Store) CreateTeamWithOwner(ctx context.Context, t Team, ownerID string) (*Team, error) {
	if err := s.mustExist(ctx, (*userRow)(nil), "u.id = ?", ownerID, ErrUserNotFound); err != nil {
		return nil, err
	}
	team, err := s.CreateTeam(ctx, t)
	if err != nil {
		return nil, err
	}
	if _, err := s.AddMember(ctx, team.ID, ownerID, RoleOwner); err != nil {
		_ = s.DeleteTeam(ctx, team.ID)
		return nil, err
	}
	return team, nil
}
