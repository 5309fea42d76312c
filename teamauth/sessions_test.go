package teamauth

import (
	"errors"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testdb"
)

func TestSessions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		s := f.store
		s.PasswordParams = cheapParams
		// other is a second Store on the same database: another process.
		other := NewStore(f.db)
		now := time.Now()
		s.now = func() time.Time { return now }
		member := f.users["member"]
		start := func(t *testing.T) string {
			t.Helper()
			secret, _, err := s.CreateSession(ctx, member.ID)
			if err != nil {
				t.Fatalf("CreateSession: %v", err)
			}
			if u, err := s.UserBySession(ctx, secret); err != nil || u.ID != member.ID {
				t.Fatalf("got %v, %v for a new session, want member", u, err)
			}
			return secret
		}
		t.Run("a session is stored only as a hash", func(t *testing.T) {
			secret := start(t)
			n, err := f.db.NewSelect().Table("kit_sessions").Where("session_hash = ?", secret).Count(ctx)
			if err != nil || n != 0 {
				t.Errorf("got %d rows holding the secret (%v), want 0", n, err)
			}
			if n, _ := f.db.NewSelect().Table("kit_sessions").Where("session_hash = ?", hashToken(secret)).Count(ctx); n != 1 {
				t.Errorf("got %d rows holding the hash, want 1", n)
			}
		})
		t.Run("malformed and unknown secrets are invalid", func(t *testing.T) {
			for _, secret := range []string{"", "kits_x", f.tokens["member"], sessionPrefix + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
				if _, err := s.UserBySession(ctx, secret); !errors.Is(err, ErrInvalidSession) {
					t.Errorf("got %v for %q, want ErrInvalidSession", err, secret)
				}
			}
		})
		t.Run("use renews the idle lifetime until the absolute one ends", func(t *testing.T) {
			secret := start(t)
			for i := 1; i <= 5; i++ { // every 5 days: the 7-day idle lifetime never passes
				now = now.Add(5 * 24 * time.Hour)
				if _, err := s.UserBySession(ctx, secret); err != nil {
					t.Fatalf("got %v on day %d, want the session alive", err, 5*i)
				}
			}
			now = now.Add(6 * 24 * time.Hour) // day 31: past the 30-day absolute lifetime
			if _, err := s.UserBySession(ctx, secret); !errors.Is(err, ErrInvalidSession) {
				t.Errorf("got %v past the absolute lifetime, want ErrInvalidSession", err)
			}
		})
		t.Run("an unused session ends after the idle lifetime", func(t *testing.T) {
			secret := start(t)
			now = now.Add(7*24*time.Hour + time.Second)
			if _, err := s.UserBySession(ctx, secret); !errors.Is(err, ErrInvalidSession) {
				t.Errorf("got %v after 7 idle days, want ErrInvalidSession", err)
			}
		})
		ends := []struct {
			name    string
			end     func(t *testing.T, secret string) error
			wantErr error
		}{
			{"sign-out by another process ends it at once", func(t *testing.T, secret string) error {
				return other.EndSession(ctx, secret)
			}, ErrInvalidSession},
			{"revoking the user's sessions ends it", func(t *testing.T, secret string) error {
				n, err := other.EndSessions(ctx, member.ID)
				if err == nil && n < 1 {
					t.Errorf("got %d sessions ended, want at least 1", n)
				}
				return err
			}, ErrInvalidSession},
			{"a password change ends it", func(t *testing.T, secret string) error {
				other.PasswordParams = cheapParams
				return other.SetPassword(ctx, member.ID, "a new long password")
			}, ErrInvalidSession},
			{"a ban ends it with 403", func(t *testing.T, secret string) error {
				return other.SetBanned(ctx, member.ID, true)
			}, ErrBanned},
		}
		for _, tt := range ends {
			t.Run(tt.name, func(t *testing.T) {
				secret := start(t)
				if err := tt.end(t, secret); err != nil {
					t.Fatal(err)
				}
				if _, err := s.UserBySession(ctx, secret); !errors.Is(err, tt.wantErr) {
					t.Errorf("got %v on the next request, want %v", err, tt.wantErr)
				}
			})
		}
		t.Run("an unban does not bring sessions back", func(t *testing.T) {
			secret, _, err := s.CreateSession(ctx, member.ID)
			if !errors.Is(err, ErrBanned) {
				t.Fatalf("got %v starting a session of a banned user, want ErrBanned", err)
			}
			_ = secret
			if err := s.SetBanned(ctx, member.ID, false); err != nil {
				t.Fatal(err)
			}
			sessions, err := s.Sessions(ctx, member.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, se := range sessions {
				if se.EndedAt == nil {
					t.Errorf("got session %s running after the unban, want every one ended", se.ID)
				}
			}
		})
	})
}
