package teamauth

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// SessionLifetimes bound a sign-in session. A session ends at the first of:
// Idle after its last use, Absolute after it started, sign-out, a password
// change, a ban, or a revocation (kit user sessions revoke).
type SessionLifetimes struct {
	// Idle is how long a session lives unused. Default 7 days. Every use
	// renews it (recorded at most once a minute).
	Idle time.Duration
	// Absolute is how long a session lives at most, however much it is
	// used. Default 30 days.
	Absolute time.Duration
}

// DefaultSessionLifetimes are the lifetimes of a zero SessionLifetimes.
var DefaultSessionLifetimes = SessionLifetimes{Idle: 7 * 24 * time.Hour, Absolute: 30 * 24 * time.Hour}

func (l SessionLifetimes) idle() time.Duration {
	if l.Idle > 0 {
		return l.Idle
	}
	return DefaultSessionLifetimes.Idle
}

func (l SessionLifetimes) absolute() time.Duration {
	if l.Absolute > 0 {
		return l.Absolute
	}
	return DefaultSessionLifetimes.Absolute
}

// sessionPrefix starts every session secret, as tokenPrefix starts tokens,
// so that the two kinds of credentials are never taken for one another.
const sessionPrefix = "kits_"

// Session is the stored record of a sign-in session. The secret the cookie
// carries is shown once, by [Store.CreateSession], and kept only as a
// SHA-256 hash.
type Session struct {
	ID         string     `json:"id"`
	UserID     string     `json:"userId"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastSeenAt time.Time  `json:"lastSeenAt"`
	ExpiresAt  time.Time  `json:"expiresAt"`
	IdleSecs   int64      `json:"idleSeconds"`
	EndedAt    *time.Time `json:"endedAt"`
}

type sessionRow struct {
	bun.BaseModel `bun:"table:kit_sessions,alias:se"`

	ID         string     `bun:"id,pk"`
	UserID     string     `bun:"user_id,notnull"`
	Hash       string     `bun:"session_hash,notnull,unique"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	LastSeenAt time.Time  `bun:"last_seen_at,notnull"`
	ExpiresAt  time.Time  `bun:"expires_at,notnull"`
	IdleSecs   int64      `bun:"idle_seconds,notnull"`
	EndedAt    *time.Time `bun:"ended_at"`
}

func (r *sessionRow) session() *Session {
	return &Session{ID: r.ID, UserID: r.UserID, CreatedAt: r.CreatedAt.UTC(), LastSeenAt: r.LastSeenAt.UTC(),
		ExpiresAt: r.ExpiresAt.UTC(), IdleSecs: r.IdleSecs, EndedAt: utcPtr(r.EndedAt)}
}

// sessionEntry is what UserBySession found for a session hash.
type sessionEntry struct {
	user      User
	sessionID string
	lastSeen  time.Time
	expires   time.Time
	idle      time.Duration
	ended     bool
}

// wellFormedSession reports whether s has the shape of a session secret.
func wellFormedSession(s string) bool {
	if len(s) != len(sessionPrefix)+base64.RawURLEncoding.EncodedLen(tokenBytes) || !strings.HasPrefix(s, sessionPrefix) {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s[len(sessionPrefix):])
	return err == nil && len(b) == tokenBytes
}

// CreateSession starts a session for the user with the Store's lifetimes
// and returns its secret (what the cookie carries; only its SHA-256 hash is
// stored) and its record. Sessions of the user that have ended or expired
// are deleted on the way. An unknown user is ErrUserNotFound; a banned one
// ErrBanned.
func (s *Store) CreateSession(ctx context.Context, userID string) (string, *Session, error) {
	u, err := s.User(ctx, userID)
	if err != nil {
		return "", nil, err
	}
	if u.Banned {
		return "", nil, ErrBanned
	}
	secret := make([]byte, tokenBytes)
	if _, err := rand.Read(secret); err != nil {
		return "", nil, fmt.Errorf("teamauth: session entropy: %w", err)
	}
	plaintext := sessionPrefix + base64.RawURLEncoding.EncodeToString(secret)
	id, err := newID()
	if err != nil {
		return "", nil, err
	}
	now := s.clock()
	row := &sessionRow{ID: id, UserID: u.ID, Hash: hashToken(plaintext), CreatedAt: now, LastSeenAt: now,
		ExpiresAt: now.Add(s.SessionLifetimes.absolute()), IdleSecs: int64(s.SessionLifetimes.idle() / time.Second)}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*sessionRow)(nil)).Where("user_id = ?", u.ID).
			WhereGroup(" AND ", func(q *bun.DeleteQuery) *bun.DeleteQuery {
				return q.Where("ended_at IS NOT NULL").WhereOr("expires_at < ?", now)
			}).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(row).Exec(ctx)
		return err
	})
	if err != nil {
		return "", nil, fmt.Errorf("teamauth: create session: %w", err)
	}
	return plaintext, row.session(), nil
}

const sqlUserBySession = `SELECT ` + userColumns + `, se.id, se.last_seen_at, se.expires_at, se.idle_seconds, se.ended_at FROM kit_users AS u JOIN kit_sessions AS se ON se.user_id = u.id WHERE se.session_hash = ?`

// UserBySession returns the user a session secret belongs to and renews the
// session's idle lifetime (recorded at most once a minute). A malformed,
// unknown, expired or ended session is ErrInvalidSession, except that the
// session of a banned user (which the ban ended) is ErrBanned. Like
// UserByToken it answers from the Store's cache while nothing has changed.
func (s *Store) UserBySession(ctx context.Context, plaintext string) (*User, error) {
	if !wellFormedSession(plaintext) {
		return nil, ErrInvalidSession
	}
	hash := hashToken(plaintext)
	version, cache := s.currentVersion(ctx)
	var e sessionEntry
	cached := false
	if cache {
		e, cached = s.sessions.get(hash, version)
	}
	if !cached {
		var lastSeen, expires, ended anyTime
		var idle int64
		u, dst := scanUser(nil)
		dst = append(dst, &e.sessionID, &lastSeen, &expires, &idle, &ended)
		if err := s.run.QueryRowKeyed(ctx, s.db, sqlUserBySession, hash).Scan(dst...); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil, ErrInvalidSession
			}
			return nil, fmt.Errorf("teamauth: find session: %w", err)
		}
		e.user, e.lastSeen, e.expires, e.idle, e.ended = *u, lastSeen.t, expires.t, time.Duration(idle)*time.Second, ended.valid
	}
	now := s.clock()
	switch {
	case e.user.Banned:
		return nil, ErrBanned
	case e.ended, !now.Before(e.expires), !now.Before(e.lastSeen.Add(e.idle)):
		return nil, ErrInvalidSession
	}
	if now.Sub(e.lastSeen) >= lastUsedEvery {
		// Renewing writes last_seen_at only, which does not count as a
		// change for the cache (see authstate.go).
		if _, err := s.db.NewUpdate().Model((*sessionRow)(nil)).Set("last_seen_at = ?", now).
			Where("id = ?", e.sessionID).Exec(ctx); err != nil {
			return nil, fmt.Errorf("teamauth: renew session: %w", err)
		}
		e.lastSeen = now
		cached = false
	}
	if cache && !cached {
		s.sessions.put(hash, version, e)
	}
	u := e.user
	return &u, nil
}

// EndSession ends the session whose secret is plaintext (sign-out). An
// unknown or ended session changes nothing and is not an error.
func (s *Store) EndSession(ctx context.Context, plaintext string) error {
	if !wellFormedSession(plaintext) {
		return nil
	}
	if _, err := s.db.NewUpdate().Model((*sessionRow)(nil)).Set("ended_at = ?", s.clock()).
		Where("session_hash = ?", hashToken(plaintext)).Where("ended_at IS NULL").Exec(ctx); err != nil {
		return fmt.Errorf("teamauth: end session: %w", err)
	}
	return nil
}

// EndSessions ends every session of the user and returns how many were
// running. An unknown user is ErrUserNotFound.
func (s *Store) EndSessions(ctx context.Context, userID string) (int, error) {
	if err := s.mustExist(ctx, (*userRow)(nil), "u.id = ?", userID, ErrUserNotFound); err != nil {
		return 0, err
	}
	var n int
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		n, err = s.endSessionsCounted(ctx, tx, userID)
		return err
	})
	return n, err
}

func (s *Store) endSessionsIn(ctx context.Context, db bun.IDB, userID string) error {
	_, err := s.endSessionsCounted(ctx, db, userID)
	return err
}

func (s *Store) endSessionsCounted(ctx context.Context, db bun.IDB, userID string) (int, error) {
	res, err := db.NewUpdate().Model((*sessionRow)(nil)).Set("ended_at = ?", s.clock()).
		Where("user_id = ?", userID).Where("ended_at IS NULL").Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("teamauth: end sessions: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// Sessions returns the user's sessions, ended ones included, newest first.
func (s *Store) Sessions(ctx context.Context, userID string) ([]Session, error) {
	var rows []sessionRow
	if err := s.db.NewSelect().Model(&rows).Where("se.user_id = ?", userID).
		Order("se.created_at DESC", "se.id DESC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("teamauth: list sessions: %w", err)
	}
	out := make([]Session, len(rows))
	for i := range rows {
		out[i] = *rows[i].session()
	}
	return out, nil
}
