package teamauth

import (
	"net/http"

	"github.com/collectionkit/kit/internal/wire"
)

func writeJSON(w http.ResponseWriter, status int, v any) { wire.JSON(w, status, v) }

// meTeam is one team of the current user, with the user's role.
type meTeam struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Slug      string `json:"slug"`
	AvatarURL string `json:"avatarUrl"`
	Role      Role   `json:"role"`
}

// meBody is what GET /me answers. Teams is absent when the Directory is
// the host's own.
type meBody struct {
	ID    string    `json:"id"`
	Name  string    `json:"name"`
	Email string    `json:"email"`
	Image string    `json:"image"`
	Role  string    `json:"role"`
	Teams *[]meTeam `json:"teams,omitempty"`
}

func (a *Accounts) me(r *http.Request, u *User) (*meBody, error) {
	b := &meBody{ID: u.ID, Name: u.Name, Email: u.Email, Image: u.Image, Role: u.Role}
	if a.Store == nil {
		return b, nil
	}
	ms, err := a.Store.MembershipsOfUser(r.Context(), u.ID)
	if err != nil {
		return nil, err
	}
	teams := make([]meTeam, len(ms))
	for i, m := range ms {
		teams[i] = meTeam{ID: m.ID, Name: m.Name, Slug: m.Slug, AvatarURL: m.AvatarURL, Role: m.Role}
	}
	b.Teams = &teams
	return b, nil
}

// GET /me: the caller and their teams.
func (a *Accounts) getMe(w http.ResponseWriter, r *http.Request) error {
	u, err := a.Auth.Authenticate(r)
	if err != nil {
		return err
	}
	me, err := a.me(r, u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, me)
	return nil
}

// PATCH /me {name?, image?}: the caller as changed.
func (a *Accounts) patchMe(w http.ResponseWriter, r *http.Request) error {
	u, s, err := a.callerAndStore(r)
	if err != nil {
		return err
	}
	var body struct {
		Name  *string `json:"name"`
		Image *string `json:"image"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if body.Name != nil {
		if err := requireName(*body.Name); err != nil {
			return err
		}
	}
	if err := checkLinkURL("image", body.Image); err != nil {
		return err
	}
	u, err = s.UpdateUser(r.Context(), u.ID, UserPatch{Name: body.Name, Image: body.Image})
	if err != nil {
		return err
	}
	me, err := a.me(r, u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, me)
	return nil
}

// GET /me/tokens: the caller's tokens, revoked ones included.
func (a *Accounts) listTokens(w http.ResponseWriter, r *http.Request) error {
	u, s, err := a.callerAndStore(r)
	if err != nil {
		return err
	}
	tokens, err := s.Tokens(r.Context(), u.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, tokens)
	return nil
}

// createdToken is a token record with its plaintext, shown this once.
type createdToken struct {
	Token
	Secret string `json:"token"`
}

// POST /me/tokens {name}: 201 with the token, shown this once.
func (a *Accounts) createToken(w http.ResponseWriter, r *http.Request) error {
	u, s, err := a.callerAndStore(r)
	if err != nil {
		return err
	}
	var body struct {
		Name string `json:"name"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if err := requireName(body.Name); err != nil {
		return err
	}
	plaintext, tok, err := s.CreateToken(r.Context(), u.ID, body.Name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, createdToken{Token: *tok, Secret: plaintext})
	return nil
}

// DELETE /me/tokens/{id}: 204; another user's token is 404, like a missing
// one.
func (a *Accounts) revokeToken(w http.ResponseWriter, r *http.Request) error {
	u, s, err := a.callerAndStore(r)
	if err != nil {
		return err
	}
	if err := s.RevokeTokenOf(r.Context(), u.ID, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// selfOnly serves next only when the route's user ({user}) is the caller:
// a user's own data under /users/{user}/... is theirs alone, and another
// user's is ErrNotSelf (403), whatever their roles.
func (a *Accounts) selfOnly(next func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		u, err := a.Auth.Authenticate(r)
		if err != nil {
			return err
		}
		if r.PathValue(a.Auth.userParam()) != u.ID {
			return ErrNotSelf
		}
		return next(w, r)
	}
}
