package teamauth

import (
	"net/http"
	"strconv"
	"unicode/utf8"
)

// pagination is the pagination data of a super-admin list, in the shape of
// kit's record lists.
type pagination struct {
	CurrentPage int `json:"currentPage"`
	PageSize    int `json:"pageSize"`
	TotalItems  int `json:"totalItems"`
	TotalPages  int `json:"totalPages"`
}

type listBody[T any] struct {
	Items      []T        `json:"items"`
	Pagination pagination `json:"pagination"`
}

// maxSearchRunes bounds the super-admin searches: a name or an email is
// shorter, and SQLite refuses LIKE patterns past a length.
const maxSearchRunes = 200

// pageQuery reads ?search=&page=&pageSize= (1 to 100, default 20); a
// search over maxSearchRunes characters, or a bad page or pageSize, is a
// *QueryError naming it. (The route has checked
// the text rule of every parameter.)
func pageQuery(r *http.Request) (PageQuery, error) {
	v := r.URL.Query()
	q := PageQuery{Search: v.Get("search"), Page: 1, PageSize: 20}
	if utf8.RuneCountInString(q.Search) > maxSearchRunes {
		return q, &QueryError{Param: "search", Message: "must be at most " + strconv.Itoa(maxSearchRunes) + " characters"}
	}
	for _, p := range []struct {
		name string
		dst  *int
		max  int
	}{{"page", &q.Page, 0}, {"pageSize", &q.PageSize, 100}} {
		s := v.Get(p.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		switch {
		case err != nil || n < 1:
			return q, &QueryError{Param: p.name, Message: "must be a whole number of at least 1"}
		case p.max > 0 && n > p.max:
			return q, &QueryError{Param: p.name, Message: "must be at most " + strconv.Itoa(p.max)}
		}
		*p.dst = n
	}
	return q, nil
}

func newList[T any](items []T, total int, q PageQuery) listBody[T] {
	if items == nil {
		items = []T{}
	}
	return listBody[T]{Items: items, Pagination: pagination{CurrentPage: q.Page, PageSize: q.PageSize,
		TotalItems: total, TotalPages: (total + q.PageSize - 1) / q.PageSize}}
}

// superAdmin authenticates a super-admin.
func (a *Accounts) superAdmin(r *http.Request) (*User, *Store, error) {
	u, err := a.Auth.Authenticate(r)
	if err != nil {
		return nil, nil, err
	}
	if !u.IsAdmin() {
		return nil, nil, ErrAdminRequired
	}
	s, err := a.store()
	return u, s, err
}

// GET /super-admin/users?search=&page=&pageSize=
func (a *Accounts) listUsers(w http.ResponseWriter, r *http.Request) error {
	_, s, err := a.superAdmin(r)
	if err != nil {
		return err
	}
	q, err := pageQuery(r)
	if err != nil {
		return err
	}
	users, total, err := s.SearchUsers(r.Context(), q)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newList(users, total, q))
	return nil
}

// GET /super-admin/teams?search=&page=&pageSize=
func (a *Accounts) listTeams(w http.ResponseWriter, r *http.Request) error {
	_, s, err := a.superAdmin(r)
	if err != nil {
		return err
	}
	q, err := pageQuery(r)
	if err != nil {
		return err
	}
	teams, total, err := s.SearchTeams(r.Context(), q)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newList(teams, total, q))
	return nil
}

// GET /super-admin/users/{id}
func (a *Accounts) getUser(w http.ResponseWriter, r *http.Request) error {
	_, s, err := a.superAdmin(r)
	if err != nil {
		return err
	}
	u, err := s.User(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

// PATCH /super-admin/users/{id} {banned?, role?}: the user as changed. A
// ban ends the user's sessions. A super-admin cannot ban or demote
// themselves (409), so that a server is never left without one by mistake.
func (a *Accounts) patchUser(w http.ResponseWriter, r *http.Request) error {
	me, s, err := a.superAdmin(r)
	if err != nil {
		return err
	}
	var body struct {
		Banned *bool   `json:"banned"`
		Role   *string `json:"role"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if body.Role != nil && *body.Role != "" && *body.Role != UserRoleAdmin {
		return ErrInvalidRole
	}
	id := r.PathValue("id")
	if id == me.ID && ((body.Banned != nil && *body.Banned) || (body.Role != nil && *body.Role != UserRoleAdmin)) {
		return ErrSelfLockout
	}
	u, err := s.UpdateUser(r.Context(), id, UserPatch{Banned: body.Banned, Role: body.Role})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}
