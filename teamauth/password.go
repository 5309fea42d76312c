package teamauth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"golang.org/x/crypto/argon2"

	"github.com/collectionkit/kit/internal/wire"
)

// PasswordParams are the argon2id parameters a password is hashed with.
// They are stored with each hash, in the PHC string format
//
//	$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>
//
// (salt and hash in unpadded standard base64), so that raising them later
// leaves existing hashes verifiable: a hash made with other parameters is
// verified with its own and replaced by one with the current parameters
// at the next successful sign-in.
type PasswordParams struct {
	// Memory is the memory cost in KiB.
	Memory uint32
	// Time is the number of passes over the memory.
	Time uint32
	// Threads is the degree of parallelism.
	Threads uint8
	// SaltLen is the length of the random salt in bytes.
	SaltLen uint32
	// KeyLen is the length of the derived key in bytes.
	KeyLen uint32
}

// DefaultPasswordParams are OWASP's first recommended argon2id
// configuration: 19 MiB of memory, 2 passes, 1 thread, a 16-byte salt and
// a 32-byte key.
var DefaultPasswordParams = PasswordParams{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// PasswordPolicy is what a new password must satisfy. The zero value is
// the default policy.
type PasswordPolicy struct {
	// MinLength is the minimum length in characters (Unicode code points).
	// Default 10.
	MinLength int
	// MaxLength is the maximum length in bytes, which bounds the work of
	// hashing. Default 256.
	MaxLength int
}

func (p PasswordPolicy) minLength() int {
	if p.MinLength > 0 {
		return p.MinLength
	}
	return 10
}

func (p PasswordPolicy) maxLength() int {
	if p.MaxLength > 0 {
		return p.MaxLength
	}
	return 256
}

// Check returns nil when password satisfies the policy, and otherwise an
// error that errors.Is matches as ErrWeakPassword, answered with 400 and a
// message naming the rule broken. email, when not empty, is the account's
// email, which the password may not equal.
func (p PasswordPolicy) Check(password, email string) error {
	switch {
	case password == "":
		return weakPassword("password is empty")
	case !utf8.ValidString(password) || strings.ContainsRune(password, 0):
		return weakPassword("password must be valid UTF-8 without NUL characters")
	case len(password) > p.maxLength():
		return weakPassword(fmt.Sprintf("password is longer than %d bytes", p.maxLength()))
	case utf8.RuneCountInString(password) < p.minLength():
		return weakPassword(fmt.Sprintf("password is shorter than %d characters", p.minLength()))
	case strings.TrimSpace(password) == "":
		return weakPassword("password is only white space")
	case email != "" && strings.EqualFold(password, email):
		return weakPassword("password must not be the account's email")
	case strings.Count(password, password[:1]) == len(password):
		return weakPassword("password repeats one character")
	}
	return nil
}

func weakPassword(msg string) error {
	return &authError{status: 400, msg: msg, parent: ErrWeakPassword}
}

// hashPassword returns the PHC string of password under p.
func hashPassword(password string, p PasswordParams) (string, error) {
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("teamauth: password salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return encodePHC(p, salt, key), nil
}

func encodePHC(p PasswordParams, salt, key []byte) string {
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// errBadHash is a stored hash that is not an argon2id PHC string kit can
// read: a 500, never a refusal that could be taken for a wrong password.
var errBadHash = errors.New("teamauth: stored password hash is not an argon2id PHC string")

// decodePHC reads a PHC string made by encodePHC. Parameters are bounded so
// that a tampered row cannot make verification exhaust the machine.
func decodePHC(s string) (p PasswordParams, salt, key []byte, err error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, errBadHash
	}
	var threads uint32
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &threads); err != nil {
		return p, nil, nil, errBadHash
	}
	if p.Memory < 8 || p.Memory > 4<<20 || p.Time < 1 || p.Time > 100 || threads < 1 || threads > 255 {
		return p, nil, nil, errBadHash
	}
	p.Threads = uint8(threads)
	b64 := base64.RawStdEncoding
	if salt, err = b64.DecodeString(parts[4]); err != nil || len(salt) < 8 {
		return p, nil, nil, errBadHash
	}
	if key, err = b64.DecodeString(parts[5]); err != nil || len(key) < 16 || len(key) > 1024 {
		return p, nil, nil, errBadHash
	}
	p.SaltLen, p.KeyLen = uint32(len(salt)), uint32(len(key))
	return p, salt, key, nil
}

// verifyPassword reports whether password matches the PHC string, in
// constant time, and whether the hash used other parameters than current
// (so should be replaced).
func verifyPassword(password, phc string, current PasswordParams) (ok, stale bool, err error) {
	p, salt, key, err := decodePHC(phc)
	if err != nil {
		return false, false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	ok = subtle.ConstantTimeCompare(got, key) == 1
	return ok, p != current, nil
}

// passwordRow is a user's password hash, in kit_passwords. It is kept apart
// from kit_users so that no query of users ever reads a hash.
type passwordRow struct {
	bun.BaseModel `bun:"table:kit_passwords,alias:pw"`

	UserID    string    `bun:"user_id,pk"`
	Hash      string    `bun:"password_hash,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

func (s *Store) passwordParams() PasswordParams {
	if s.PasswordParams != (PasswordParams{}) {
		return s.PasswordParams
	}
	return DefaultPasswordParams
}

// SetPassword checks password against the Store's PasswordPolicy, hashes
// it with argon2id and stores it as the user's password, replacing any
// other, and ends every session of the user, in one transaction. An
// unknown user is ErrUserNotFound; a password the policy refuses is an
// error errors.Is matches as ErrWeakPassword, naming the rule.
func (s *Store) SetPassword(ctx context.Context, userID, password string) error {
	u, err := s.User(ctx, userID)
	if err != nil {
		return err
	}
	if err := s.PasswordPolicy.Check(password, u.Email); err != nil {
		return err
	}
	hash, err := hashPassword(password, s.passwordParams())
	if err != nil {
		return err
	}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		row := &passwordRow{UserID: u.ID, Hash: hash, UpdatedAt: s.clock()}
		if _, err := tx.NewInsert().Model(row).On("CONFLICT (user_id) DO UPDATE").
			Set("password_hash = EXCLUDED.password_hash").Set("updated_at = EXCLUDED.updated_at").
			Exec(ctx); err != nil {
			return fmt.Errorf("teamauth: set password: %w", err)
		}
		return s.endSessionsIn(ctx, tx, u.ID)
	})
}

// HasPassword reports whether the user has a password.
func (s *Store) HasPassword(ctx context.Context, userID string) (bool, error) {
	ok, err := s.db.NewSelect().Model((*passwordRow)(nil)).Where("pw.user_id = ?", userID).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("teamauth: lookup password: %w", err)
	}
	return ok, nil
}

// dummyHash is verified against when no user has the email (or the user
// has no password), so that an unknown email costs the same time as a
// wrong password. It is made once per Store, with the Store's parameters.
func (s *Store) dummyHash() string {
	s.dummyOnce.Do(func() {
		h, err := hashPassword("kit-dummy-password", s.passwordParams())
		if err != nil {
			h = encodePHC(s.passwordParams(), make([]byte, s.passwordParams().SaltLen), make([]byte, s.passwordParams().KeyLen))
		}
		s.dummy = h
	})
	return s.dummy
}

// sqlUserPasswordByEmail finds a sign-in's user. The test of a non-empty
// email repeats the predicate of kit_users_email_key, a partial index on
// lower(email): without it neither engine may use the index, and every
// sign-in reads the whole users table.
const sqlUserPasswordByEmail = `SELECT ` + userColumns + `, pw.password_hash FROM kit_users AS u LEFT JOIN kit_passwords AS pw ON pw.user_id = u.id WHERE lower(u.email) = lower(?) AND u.email <> '' ORDER BY u.created_at, u.id LIMIT 1`

// CheckPassword returns the user whose email (compared without regard to
// case) is email when password is theirs. An unknown email, a user without
// a password, a wrong password, and an email or password that breaks the
// text rule (a NUL, bytes that are not UTF-8) are all
// ErrInvalidCredentials, and take the same time: an argon2id verification
// is made in every case. A hash made with other parameters than the
// Store's is replaced on success. A banned user with the right password
// is ErrBanned.
func (s *Store) CheckPassword(ctx context.Context, email, password string) (*User, error) {
	if wire.TextProblem(email) != "" || wire.TextProblem(password) != "" {
		return nil, s.refuseCredentials(password) // no such account can exist
	}
	var hash *string
	u, dst := scanUser(nil)
	dst = append(dst, &hash)
	err := s.run.QueryRowKeyed(ctx, s.db, sqlUserPasswordByEmail, email).Scan(dst...)
	found := err == nil && hash != nil && email != ""
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("teamauth: find user by email: %w", err)
	}
	phc := s.dummyHash()
	if found {
		phc = *hash
	}
	ok, stale, err := verifyPassword(password, phc, s.passwordParams())
	if err != nil {
		return nil, err
	}
	if !found || !ok {
		return nil, ErrInvalidCredentials
	}
	if stale {
		if newHash, err := hashPassword(password, s.passwordParams()); err == nil {
			_, _ = s.db.NewUpdate().Model((*passwordRow)(nil)).Set("password_hash = ?", newHash).
				Where("user_id = ?", u.ID).Exec(ctx)
		}
	}
	if u.Banned {
		return nil, ErrBanned
	}
	return u, nil
}

// refuseCredentials refuses a sign-in without looking it up, after the
// work a wrong password costs (a verification against the dummy hash), so
// that the answer takes the same time: ErrInvalidCredentials.
func (s *Store) refuseCredentials(password string) error {
	_, _, _ = verifyPassword(password, s.dummyHash(), s.passwordParams())
	return ErrInvalidCredentials
}

// VerifyPasswordOf returns nil when password is the user's, and
// ErrInvalidCredentials when it is not or the user has none (verifying a
// dummy hash then, so both take the same time).
func (s *Store) VerifyPasswordOf(ctx context.Context, userID, password string) error {
	var hash string
	err := s.db.NewSelect().Model((*passwordRow)(nil)).Column("pw.password_hash").
		Where("pw.user_id = ?", userID).Scan(ctx, &hash)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("teamauth: find password: %w", err)
	}
	if !found {
		hash = s.dummyHash()
	}
	ok, _, err := verifyPassword(password, hash, s.passwordParams())
	if err != nil {
		return err
	}
	if !found || !ok {
		return ErrInvalidCredentials
	}
	return nil
}
