package teamauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testdb"
)

func TestCreateToken(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		ada := f.users["member"]

		plaintext, tok, err := f.store.CreateToken(ctx, ada.ID, "ci")
		if err != nil {
			t.Fatalf("CreateToken: %v", err)
		}
		t.Run("the plaintext is kit_ and 32 bytes in base64url", func(t *testing.T) {
			secret, found := strings.CutPrefix(plaintext, "kit_")
			b, err := base64.RawURLEncoding.DecodeString(secret)
			if !found || err != nil || len(b) != 32 {
				t.Errorf("got %q, want kit_ and 32 bytes in unpadded base64url", plaintext)
			}
		})
		t.Run("two tokens differ", func(t *testing.T) {
			other, _, err := f.store.CreateToken(ctx, ada.ID, "ci")
			if err != nil || other == plaintext {
				t.Errorf("got %q (%v) twice, want two different tokens", other, err)
			}
		})
		t.Run("the record names the user and is neither used nor revoked", func(t *testing.T) {
			if tok.UserID != ada.ID || tok.Name != "ci" || tok.LastUsedAt != nil || tok.RevokedAt != nil {
				t.Errorf("got %+v, want a fresh token of %s named ci", tok, ada.ID)
			}
		})
		t.Run("the plaintext is stored in no column, only its SHA-256", func(t *testing.T) {
			rows, err := f.db.QueryContext(ctx, "SELECT * FROM kit_tokens")
			if err != nil {
				t.Fatalf("select: %v", err)
			}
			defer rows.Close()
			cols, err := rows.Columns()
			if err != nil {
				t.Fatalf("columns: %v", err)
			}
			secret := strings.TrimPrefix(plaintext, "kit_")
			sum := sha256.Sum256([]byte(plaintext))
			wantHash := hex.EncodeToString(sum[:])
			foundHash, n := false, 0
			for rows.Next() {
				n++
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatalf("scan: %v", err)
				}
				for i, v := range vals {
					s := fmt.Sprint(v)
					if b, ok := v.([]byte); ok {
						s = string(b)
					}
					if strings.Contains(s, secret) {
						t.Errorf("got the token's secret in column %s: %q", cols[i], s)
					}
					if cols[i] == "token_hash" && s == wantHash {
						foundHash = true
					}
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatalf("rows: %v", err)
			}
			if n == 0 || !foundHash {
				t.Errorf("got %d rows and hash found %v, want the token's SHA-256 in token_hash", n, foundHash)
			}
		})
		t.Run("a token for an unknown user is not made", func(t *testing.T) {
			if _, _, err := f.store.CreateToken(ctx, "nobody", "ci"); !errors.Is(err, ErrUserNotFound) {
				t.Errorf("got %v, want ErrUserNotFound", err)
			}
		})
	})
}

func TestUserByToken(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		good := f.tokens["member"]
		tests := []struct {
			name    string
			token   string
			want    string // user name
			wantErr error
		}{
			{"a valid token gives its user", good, "member", nil},
			{"a banned user's token still gives the user", f.tokens["banned"], "banned", nil},
			{"an empty token is invalid", "", "", ErrInvalidToken},
			{"a token without the prefix is invalid", "xyz_" + good[4:], "", ErrInvalidToken},
			{"a truncated token is invalid", good[:len(good)-1], "", ErrInvalidToken},
			{"a token with a character outside base64url is invalid", good[:len(good)-1] + "+", "", ErrInvalidToken},
			{"a well-formed unknown token is invalid", "kit_" + strings.Repeat("A", 43), "", ErrInvalidToken},
			{"a revoked token is invalid", f.tokens["revoked"], "", ErrInvalidToken},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				u, err := f.store.UserByToken(t.Context(), tt.token)
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
					t.Fatalf("got error %v, want %v", err, tt.wantErr)
				}
				if err != nil {
					if !errors.Is(err, ErrUnauthorized) {
						t.Errorf("got %v, want an error matching ErrUnauthorized", err)
					}
					return
				}
				if u.ID != f.users[tt.want].ID {
					t.Errorf("got user %s, want %s", u.Name, tt.want)
				}
			})
		}
	})
}

func TestTokenLastUseIsRecordedAtMostOnceAMinute(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		for _, mode := range []struct {
			name     string
			uncached bool
		}{{"answered from the cache", false}, {"answered from the database", true}} {
			t.Run("lookups "+mode.name, func(t *testing.T) {
				f := newFixture(t, e)
				ctx := t.Context()
				t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
				now := t0
				f.store.now = func() time.Time { return now }
				f.store.uncached = mode.uncached
				plaintext, tok, err := f.store.CreateToken(ctx, f.users["member"].ID, "clock")
				if err != nil {
					t.Fatalf("CreateToken: %v", err)
				}
				steps := []struct {
					name string
					at   time.Duration // after t0
					want time.Duration // last use after t0
				}{
					{"the first use is recorded", 0, 0},
					{"a use 30 seconds later is not", 30 * time.Second, 0},
					{"a use 59 seconds later is not", 59 * time.Second, 0},
					{"a use a minute later is", time.Minute, time.Minute},
					{"a use 90 seconds later, half a minute after the last record, is not", 90 * time.Second, time.Minute},
					{"a use five minutes later is", 5 * time.Minute, 5 * time.Minute},
				}
				for _, st := range steps {
					t.Run(st.name, func(t *testing.T) {
						now = t0.Add(st.at)
						if _, err := f.store.UserByToken(ctx, plaintext); err != nil {
							t.Fatalf("UserByToken: %v", err)
						}
						got := lastUsed(t, f.store, tok.ID)
						if got == nil || !got.Equal(t0.Add(st.want)) {
							t.Errorf("got last use %v, want %v", got, t0.Add(st.want))
						}
					})
				}
			})
		}
	})
}

// lastUsed returns the recorded last use of the token.
func lastUsed(t *testing.T, s *Store, tokenID string) *time.Time {
	t.Helper()
	row := new(tokenRow)
	if err := s.db.NewSelect().Model(row).Where("k.id = ?", tokenID).Scan(t.Context()); err != nil {
		t.Fatalf("select token: %v", err)
	}
	return row.token().LastUsedAt
}

func TestRevokeToken(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		ctx := t.Context()
		ada := f.users["owner"]
		first, tok, err := f.store.CreateToken(ctx, ada.ID, "first")
		if err != nil {
			t.Fatalf("CreateToken: %v", err)
		}
		if _, _, err := f.store.CreateToken(ctx, ada.ID, "second"); err != nil {
			t.Fatalf("CreateToken: %v", err)
		}

		t.Run("a token works until it is revoked", func(t *testing.T) {
			if _, err := f.store.UserByToken(ctx, first); err != nil {
				t.Fatalf("got %v before revoking, want nil", err)
			}
			if err := f.store.RevokeToken(ctx, tok.ID); err != nil {
				t.Fatalf("RevokeToken: %v", err)
			}
			if _, err := f.store.UserByToken(ctx, first); !errors.Is(err, ErrUnauthorized) {
				t.Errorf("got %v after revoking, want ErrUnauthorized", err)
			}
		})
		t.Run("revoking twice is fine", func(t *testing.T) {
			if err := f.store.RevokeToken(ctx, tok.ID); err != nil {
				t.Errorf("got %v, want nil", err)
			}
		})
		t.Run("revoking an unknown token is not found", func(t *testing.T) {
			if err := f.store.RevokeToken(ctx, "nope"); !errors.Is(err, ErrTokenNotFound) {
				t.Errorf("got %v, want ErrTokenNotFound", err)
			}
		})
		t.Run("the user's tokens are listed newest first with the revocation", func(t *testing.T) {
			toks, err := f.store.Tokens(ctx, ada.ID)
			if err != nil {
				t.Fatalf("Tokens: %v", err)
			}
			var got []string
			for _, k := range toks {
				got = append(got, fmt.Sprintf("%s revoked=%v", k.Name, k.RevokedAt != nil))
			}
			want := []string{"second revoked=false", "first revoked=true", "test revoked=false"}
			if strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	})
}
