package teamauth

import (
	"errors"
	"fmt"
	"testing"

	"github.com/collectionkit/kit/internal/wire"
)

func TestSentinels(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		msg    string
	}{
		{"ErrNoCredentials", ErrNoCredentials, 401, "authentication required"},
		{"ErrUnauthorized", ErrUnauthorized, 401, "authentication required"},
		{"ErrInvalidToken", ErrInvalidToken, 401, "invalid token"},
		{"ErrBanned", ErrBanned, 403, "user is banned"},
		{"ErrNotMember", ErrNotMember, 403, "not a member of this team"},
		{"ErrInsufficientRole", ErrInsufficientRole, 403, "insufficient team role"},
		{"ErrNotSelf", ErrNotSelf, 403, "access to another user's data is not allowed"},
		{"ErrAdminRequired", ErrAdminRequired, 403, "admin role required"},
		{"ErrTeamNotFound", ErrTeamNotFound, 404, "team not found"},
		{"ErrUserNotFound", ErrUserNotFound, 404, "user not found"},
		{"ErrTokenNotFound", ErrTokenNotFound, 404, "token not found"},
		{"ErrSlugTaken", ErrSlugTaken, 409, "team slug already taken"},
		{"ErrTeamMissing", ErrTeamMissing, 400, "team id missing"},
		{"ErrInvalidSlug", ErrInvalidSlug, 400, ErrInvalidSlug.Error()},
		{"ErrInvalidID", ErrInvalidID, 400, "invalid team id: must be a UUID"},
		{"ErrInvalidRole", ErrInvalidRole, 400, "invalid role"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" answers its status and message even when wrapped", func(t *testing.T) {
			b := wire.BodyFor(fmt.Errorf("teamauth: looking things up: %w", tt.err))
			if b.Status != tt.status || b.Message != tt.msg {
				t.Errorf("got %d %q, want %d %q", b.Status, b.Message, tt.status, tt.msg)
			}
		})
	}
	t.Run("sentinels are distinct", func(t *testing.T) {
		for i, a := range tests {
			for j, b := range tests {
				refines := a.err == ErrInvalidToken && b.err == ErrUnauthorized
				if i != j && !refines && errors.Is(a.err, b.err) {
					t.Errorf("got errors.Is(%s, %s) true, want false", a.name, b.name)
				}
			}
		}
	})
	t.Run("an invalid token is unauthorized", func(t *testing.T) {
		if !errors.Is(ErrInvalidToken, ErrUnauthorized) {
			t.Errorf("got errors.Is(ErrInvalidToken, ErrUnauthorized) false, want true")
		}
	})
}
