package teamauth

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"time"
)

// clientAddress is the address failed sign-ins are counted under: the host
// part of RemoteAddr.
func clientAddress(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

func (a *Accounts) secure(r *http.Request) bool { return a.Config.SecureCookies || r.TLS != nil }

// sessionCookie is the cookie carrying secret until expires; an empty
// secret makes the cookie that deletes it.
func (a *Accounts) sessionCookie(r *http.Request, secret string, expires time.Time) *http.Cookie {
	c := &http.Cookie{
		Name: a.Config.cookieName(), Value: secret, Path: a.prefix(),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: a.secure(r),
	}
	if secret == "" {
		c.MaxAge = -1
	} else {
		c.Expires = expires
	}
	return c
}

// POST /auth/login {email, password}: 200 with the user (as GET /me) and a
// session cookie. An email or password that breaks the text rule is a
// failed sign-in like a wrong password: 401, counted by the throttle.
func (a *Accounts) login(w http.ResponseWriter, r *http.Request) error {
	if err := a.cop.Check(r); err != nil {
		return ErrCrossOrigin
	}
	s, err := a.store()
	if err != nil {
		return err
	}
	var body struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	err = decodeJSON(w, r, &body)
	var badText *FieldError
	if err != nil && !errors.As(err, &badText) {
		return err
	}
	account, address := strings.ToLower(strings.TrimSpace(body.Email)), clientAddress(r)
	if err := a.limiter.check(account, address, a.now()); err != nil {
		return err
	}
	var u *User
	if badText != nil {
		err = s.refuseCredentials(body.Password)
	} else {
		u, err = s.CheckPassword(r.Context(), strings.TrimSpace(body.Email), body.Password)
	}
	if err != nil {
		if errors.Is(err, ErrInvalidCredentials) {
			a.limiter.failed(account, address, a.now())
		}
		return err
	}
	a.limiter.succeeded(account)
	secret, session, err := s.CreateSession(r.Context(), u.ID)
	if err != nil {
		return err
	}
	http.SetCookie(w, a.sessionCookie(r, secret, session.ExpiresAt))
	me, err := a.me(r, u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, me)
	return nil
}

// POST /auth/logout: 204; ends the cookie's session, if any, and deletes
// the cookie.
func (a *Accounts) logout(w http.ResponseWriter, r *http.Request) error {
	c, err := r.Cookie(a.Config.cookieName())
	if err != nil || c.Value == "" {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if err := a.cop.Check(r); err != nil {
		return ErrCrossOrigin
	}
	if a.Store != nil {
		if err := a.Store.EndSession(r.Context(), c.Value); err != nil {
			return err
		}
	}
	http.SetCookie(w, a.sessionCookie(r, "", time.Time{}))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// POST /me/password {currentPassword, newPassword}: 204. The current
// password is required when the user has one (403 when wrong or when it
// breaks the text rule, counted as a failed sign-in); a new password the
// policy or the text rule refuses is 400 naming the rule. Every session
// of the user ends; a caller signed in with a cookie gets a new session
// in its place.
func (a *Accounts) changePassword(w http.ResponseWriter, r *http.Request) error {
	u, s, err := a.callerAndStore(r)
	if err != nil {
		return err
	}
	var body struct {
		CurrentPassword string `json:"currentPassword"`
		NewPassword     string `json:"newPassword"`
	}
	// A current password that breaks the text rule is a wrong one; a new
	// one is refused before anything is checked.
	var badText *FieldError
	if err := decodeJSON(w, r, &body); err != nil {
		if !errors.As(err, &badText) || badText.Fields["currentPassword"] == "" {
			return err
		}
	}
	ctx := r.Context()
	has, err := s.HasPassword(ctx, u.ID)
	if err != nil {
		return err
	}
	if !has && badText != nil {
		return badText
	}
	if has {
		account, address := strings.ToLower(u.Email), clientAddress(r)
		if err := a.limiter.check(account, address, a.now()); err != nil {
			return err
		}
		var verify error
		if badText != nil {
			verify = s.refuseCredentials(body.CurrentPassword)
		} else {
			verify = s.VerifyPasswordOf(ctx, u.ID, body.CurrentPassword)
		}
		if err := verify; err != nil {
			if errors.Is(err, ErrInvalidCredentials) {
				a.limiter.failed(account, address, a.now())
				return ErrWrongPassword
			}
			return err
		}
	}
	if err := s.SetPassword(ctx, u.ID, body.NewPassword); err != nil {
		return err
	}
	if c, err := r.Cookie(a.Config.cookieName()); err == nil && c.Value != "" {
		secret, session, err := s.CreateSession(ctx, u.ID)
		if err != nil {
			return err
		}
		http.SetCookie(w, a.sessionCookie(r, secret, session.ExpiresAt))
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
