package teamauth

import "time"

// UserRoleAdmin is the global [User.Role] of a super-admin: a user allowed
// on the admin routes ([Auth.RequireAdmin]). It grants nothing inside a
// team; team rights come from a [Membership] only.
const UserRoleAdmin = "admin"

// User is an account that can authenticate.
type User struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	// Role is the global role: UserRoleAdmin for super-admins, "" otherwise.
	Role string `json:"role"`
	// Banned users are refused (ErrBanned) even with valid credentials.
	Banned    bool      `json:"banned"`
	Image     string    `json:"image"`
	CreatedAt time.Time `json:"createdAt"`
}

// IsAdmin reports whether u is a super-admin (Role is UserRoleAdmin). A nil
// user is not.
func (u *User) IsAdmin() bool { return u != nil && u.Role == UserRoleAdmin }

// Team is a tenant: every collection record belongs to one team. Routes
// name a team by ID or by Slug.
type Team struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Slug        string         `json:"slug"`
	Description string         `json:"description"`
	AvatarURL   string         `json:"avatarUrl"`
	Settings    map[string]any `json:"settings"`
	CreatedAt   time.Time      `json:"createdAt"`
}

// Membership links a user to a team with a team role.
type Membership struct {
	ID        string    `json:"id"`
	TeamID    string    `json:"teamId"`
	UserID    string    `json:"userId"`
	Role      Role      `json:"role"`
	CreatedAt time.Time `json:"createdAt"`
}

// Role is a team role. Roles are ordered: RoleOwner > RoleAdmin >
// RoleMember; compare them with [Role.AtLeast].
type Role string

// The team roles.
const (
	// RoleOwner may do everything in the team, including updating its
	// settings.
	RoleOwner Role = "owner"
	// RoleAdmin may manage members and any record of the team.
	RoleAdmin Role = "admin"
	// RoleMember may read the team's records and change their own.
	RoleMember Role = "member"
)

// rank orders the roles; an unknown role ranks 0, below every real role.
func (r Role) rank() int {
	switch r {
	case RoleOwner:
		return 3
	case RoleAdmin:
		return 2
	case RoleMember:
		return 1
	}
	return 0
}

// Valid reports whether r is RoleOwner, RoleAdmin or RoleMember.
func (r Role) Valid() bool { return r.rank() > 0 }

// AtLeast reports whether r is min or a higher role. An unknown role is
// never at least anything, and nothing is at least an unknown role.
func (r Role) AtLeast(min Role) bool { return min.Valid() && r.rank() >= min.rank() }

// Token is the stored record of an API token. The token itself is shown
// once, by [Store.CreateToken], and kept only as a SHA-256 hash.
type Token struct {
	ID         string     `json:"id"`
	UserID     string     `json:"userId"`
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
}
