package teamauth

import (
	"errors"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/wire"
)

// cheapParams keep argon2id fast in tests that are not about its cost.
var cheapParams = PasswordParams{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestPasswordPolicy(t *testing.T) {
	tests := []struct {
		name, password, email, wantMsg string
	}{
		{"an empty password is refused", "", "", "password is empty"},
		{"a short password is refused", "short", "", "password is shorter than 10 characters"},
		{"ten characters are enough", "abcdefghij", "", ""},
		{"length counts characters, not bytes", "ééééééééé", "", "password is shorter than 10 characters"},
		{"white space only is refused", strings.Repeat(" ", 12), "", "password is only white space"},
		{"one repeated character is refused", strings.Repeat("a", 12), "", "password repeats one character"},
		{"the account's email is refused", "Ann@Example.com", "ann@example.com", "password must not be the account's email"},
		{"a NUL byte is refused", "abcdefghij\x00", "", "password must be valid UTF-8 without NUL characters"},
		{"invalid UTF-8 is refused", "abcdefghij\xff", "", "password must be valid UTF-8 without NUL characters"},
		{"over 256 bytes is refused", strings.Repeat("ab", 129), "", "password is longer than 256 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := PasswordPolicy{}.Check(tt.password, tt.email)
			if tt.wantMsg == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrWeakPassword) || err.Error() != tt.wantMsg || wire.Status(err) != 400 {
				t.Fatalf("got %v (status %d), want %q, 400, errors.Is ErrWeakPassword", err, wire.Status(err), tt.wantMsg)
			}
		})
	}
}

func TestPasswordHashFormat(t *testing.T) {
	h, err := hashPassword("correct horse battery", DefaultPasswordParams)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("got %q, want a PHC string with the default parameters", h)
	}
	tests := []struct {
		name      string
		password  string
		current   PasswordParams
		wantOK    bool
		wantStale bool
	}{
		{"the right password verifies", "correct horse battery", DefaultPasswordParams, true, false},
		{"a wrong password does not", "correct horse batterz", DefaultPasswordParams, false, false},
		{"a hash of older parameters is stale", "correct horse battery", PasswordParams{Memory: 65536, Time: 3, Threads: 1, SaltLen: 16, KeyLen: 32}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, stale, err := verifyPassword(tt.password, h, tt.current)
			if err != nil || ok != tt.wantOK || stale != tt.wantStale {
				t.Errorf("got ok %v stale %v err %v, want %v %v nil", ok, stale, err, tt.wantOK, tt.wantStale)
			}
		})
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5", "$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5", "plaintext"} {
		if _, _, err := verifyPassword("x", bad, DefaultPasswordParams); !errors.Is(err, errBadHash) {
			t.Errorf("got %v for stored hash %q, want errBadHash", err, bad)
		}
	}
}

func TestSetAndCheckPassword(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		s, ctx := f.store, t.Context()
		s.PasswordParams = cheapParams
		member := f.users["member"]
		if err := s.SetPassword(ctx, member.ID, "short"); !errors.Is(err, ErrWeakPassword) {
			t.Fatalf("got %v setting a short password, want ErrWeakPassword", err)
		}
		if ok, _ := s.HasPassword(ctx, member.ID); ok {
			t.Fatalf("got a stored password after a refused one, want none")
		}
		if err := s.SetPassword(ctx, "no-such-user", "long enough pw"); !errors.Is(err, ErrUserNotFound) {
			t.Fatalf("got %v for an unknown user, want ErrUserNotFound", err)
		}
		if err := s.SetPassword(ctx, member.ID, "long enough pw"); err != nil {
			t.Fatalf("SetPassword: %v", err)
		}
		var stored string
		if err := f.db.NewSelect().Table("kit_passwords").Column("password_hash").Where("user_id = ?", member.ID).Scan(ctx, &stored); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stored, "long enough pw") || !strings.HasPrefix(stored, "$argon2id$") {
			t.Fatalf("got stored %q, want an argon2id hash only", stored)
		}
		tests := []struct {
			name, email, password string
			wantErr               error
		}{
			{"the right password signs in", "member@example.com", "long enough pw", nil},
			{"the email is compared without case", "MEMBER@example.com", "long enough pw", nil},
			{"a wrong password is refused", "member@example.com", "long enough px", ErrInvalidCredentials},
			{"an unknown email is refused alike", "nobody@example.com", "long enough pw", ErrInvalidCredentials},
			{"a user without a password is refused alike", "admin@example.com", "", ErrInvalidCredentials},
			{"an empty email is refused alike", "", "long enough pw", ErrInvalidCredentials},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				u, err := s.CheckPassword(ctx, tt.email, tt.password)
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) || u != nil {
						t.Fatalf("got %v, %v; want %v", u, err, tt.wantErr)
					}
					return
				}
				if err != nil || u.ID != member.ID {
					t.Fatalf("got %v, %v; want member", u, err)
				}
			})
		}
		t.Run("a hash of older parameters is replaced at sign-in", func(t *testing.T) {
			s.PasswordParams = PasswordParams{Memory: 128, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}
			if _, err := s.CheckPassword(ctx, "member@example.com", "long enough pw"); err != nil {
				t.Fatal(err)
			}
			var now string
			if err := f.db.NewSelect().Table("kit_passwords").Column("password_hash").Where("user_id = ?", member.ID).Scan(ctx, &now); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(now, "m=128,") {
				t.Errorf("got %q, want a hash with m=128", now)
			}
		})
	})
}
