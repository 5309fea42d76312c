package teamauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// tokenPrefix starts every plaintext token, so that a leaked token is
// recognizable (secret scanners, logs) and a wrong kind of credential is
// refused without a database lookup.
const tokenPrefix = "kit_"

// tokenBytes is the entropy of a token: 32 bytes from crypto/rand.
const tokenBytes = 32

// tokenLen is the length of a plaintext token: the prefix and 32 bytes in
// unpadded base64url.
var tokenLen = len(tokenPrefix) + base64.RawURLEncoding.EncodedLen(tokenBytes)

// lastUsedEvery bounds how often a token's last_used_at is written: once a
// minute is precise enough to show and spares a write per request.
const lastUsedEvery = time.Minute

// hashToken returns the stored form of a plaintext token: its SHA-256, in
// hex. The token has 256 bits of entropy, so a fast unsalted hash is enough:
// there is nothing to guess.
func hashToken(plaintext string) string {
	sum := sha256.Sum256([]byte(plaintext))
	return hex.EncodeToString(sum[:])
}

// wellFormedToken reports whether s has the shape of a token CreateToken
// makes.
func wellFormedToken(s string) bool {
	if len(s) != tokenLen || !strings.HasPrefix(s, tokenPrefix) {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s[len(tokenPrefix):])
	return err == nil && len(b) == tokenBytes
}

// CreateToken makes a new API token for the user and returns its plaintext
// ("kit_" and 32 random bytes in base64url) with its record. The plaintext
// is shown this once: only its SHA-256 hash is stored. An unknown user is
// ErrUserNotFound.
func (s *Store) CreateToken(ctx context.Context, userID, name string) (string, *Token, error) {
	if err := s.mustExist(ctx, (*userRow)(nil), "u.id = ?", userID, ErrUserNotFound); err != nil {
		return "", nil, err
	}
	secret := make([]byte, tokenBytes)
	if _, err := rand.Read(secret); err != nil {
		return "", nil, fmt.Errorf("teamauth: token entropy: %w", err)
	}
	plaintext := tokenPrefix + base64.RawURLEncoding.EncodeToString(secret)
	id, err := newID()
	if err != nil {
		return "", nil, err
	}
	row := &tokenRow{ID: id, UserID: userID, Name: name, Hash: hashToken(plaintext), CreatedAt: s.clock()}
	if _, err := s.db.NewInsert().Model(row).Exec(ctx); err != nil {
		return "", nil, fmt.Errorf("teamauth: create token: %w", err)
	}
	return plaintext, row.token(), nil
}

// RevokeToken revokes the token with the given id; it stops working at
// once. Revoking a revoked token changes nothing; an unknown id is
// ErrTokenNotFound.
func (s *Store) RevokeToken(ctx context.Context, tokenID string) error {
	res, err := s.db.NewUpdate().Model((*tokenRow)(nil)).
		Set("revoked_at = ?", s.clock()).
		Where("id = ?", tokenID).Where("revoked_at IS NULL").Exec(ctx)
	if err != nil {
		return fmt.Errorf("teamauth: revoke token: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("teamauth: revoke token: %w", err)
	}
	if n > 0 {
		return nil
	}
	// Nothing changed: the token is unknown, or was revoked before.
	return s.mustExist(ctx, (*tokenRow)(nil), "k.id = ?", tokenID, ErrTokenNotFound)
}

// Tokens returns the records of the user's tokens, revoked ones included,
// newest first.
func (s *Store) Tokens(ctx context.Context, userID string) ([]Token, error) {
	var rows []tokenRow
	err := s.db.NewSelect().Model(&rows).Where("k.user_id = ?", userID).
		Order("k.created_at DESC", "k.id DESC").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("teamauth: list tokens: %w", err)
	}
	out := make([]Token, len(rows))
	for i := range rows {
		out[i] = *rows[i].token()
	}
	return out, nil
}

// RevokeTokenOf revokes the token with the given id when it is the user's.
// Another user's token is ErrTokenNotFound, like an unknown one.
func (s *Store) RevokeTokenOf(ctx context.Context, userID, tokenID string) error {
	ok, err := s.db.NewSelect().Model((*tokenRow)(nil)).Where("k.id = ?", tokenID).Where("k.user_id = ?", userID).Exists(ctx)
	if err != nil {
		return fmt.Errorf("teamauth: find token: %w", err)
	}
	if !ok {
		return ErrTokenNotFound
	}
	return s.RevokeToken(ctx, tokenID)
}
