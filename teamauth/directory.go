package teamauth

import "context"

// Directory is where teams, users and memberships come from: the three
// lookups the guards of [Auth] need, and all a host with its own user and
// team tables implements to use them. [Store] is the default, on kit's own
// tables.
//
// Implementations return the package's sentinels for what is missing, so
// that the guards answer with the right status; any other error is answered
// as a 500 and logged.
type Directory interface {
	// Team returns the team whose id or slug is idOrSlug, or
	// ErrTeamNotFound.
	Team(ctx context.Context, idOrSlug string) (*Team, error)
	// User returns the user with the given id, or ErrUserNotFound.
	User(ctx context.Context, id string) (*User, error)
	// Membership returns the membership of the user in the team (by team
	// id, not slug), or ErrNotMember.
	Membership(ctx context.Context, teamID, userID string) (*Membership, error)
}
