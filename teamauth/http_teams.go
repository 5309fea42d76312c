package teamauth

import (
	"net/http"
)

// teamBody is a team with the caller's role in it.
type teamBody struct {
	Team
	Role Role `json:"role,omitempty"`
}

// POST /teams {name, slug?, description?, avatarUrl?, settings?}: 201 with
// the team; the caller becomes its owner.
func (a *Accounts) createTeam(w http.ResponseWriter, r *http.Request) error {
	u, s, err := a.callerAndStore(r)
	if err != nil {
		return err
	}
	if a.Config.TeamCreation != TeamCreationUsers && !u.IsAdmin() {
		return ErrAdminRequired
	}
	var body struct {
		Name        string         `json:"name"`
		Slug        string         `json:"slug"`
		Description string         `json:"description"`
		AvatarURL   string         `json:"avatarUrl"`
		Settings    map[string]any `json:"settings"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if err := requireName(body.Name); err != nil {
		return err
	}
	if err := checkLinkURL("avatarUrl", &body.AvatarURL); err != nil {
		return err
	}
	t, err := s.CreateTeamWithOwner(r.Context(), Team{Name: body.Name, Slug: body.Slug,
		Description: body.Description, AvatarURL: body.AvatarURL, Settings: body.Settings}, u.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, teamBody{Team: *t, Role: RoleOwner})
	return nil
}

// GET /teams/{team}: the team, for its members.
func (a *Accounts) getTeam(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.Auth.ResolveTeamAndCheckMembership(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, teamBody{Team: *acc.Team, Role: acc.Membership.Role})
	return nil
}

// ownerAccess resolves the route's team for an owner.
func (a *Accounts) ownerAccess(r *http.Request) (*Access, *Store, error) {
	acc, err := a.Auth.ResolveTeamAndCheckMembership(r)
	if err != nil {
		return nil, nil, err
	}
	if err := RequireRole(acc.Membership, RoleOwner); err != nil {
		return nil, nil, err
	}
	s, err := a.store()
	return acc, s, err
}

// PATCH /teams/{team} {name?, slug?, description?, avatarUrl?, settings?}:
// the team as changed, for owners.
func (a *Accounts) patchTeam(w http.ResponseWriter, r *http.Request) error {
	acc, s, err := a.ownerAccess(r)
	if err != nil {
		return err
	}
	var body struct {
		Name        *string        `json:"name"`
		Slug        *string        `json:"slug"`
		Description *string        `json:"description"`
		AvatarURL   *string        `json:"avatarUrl"`
		Settings    map[string]any `json:"settings"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if body.Name != nil {
		if err := requireName(*body.Name); err != nil {
			return err
		}
	}
	if err := checkLinkURL("avatarUrl", body.AvatarURL); err != nil {
		return err
	}
	t, err := s.UpdateTeam(r.Context(), acc.Team.ID, TeamPatch{Name: body.Name, Slug: body.Slug,
		Description: body.Description, AvatarURL: body.AvatarURL, Settings: body.Settings})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, teamBody{Team: *t, Role: acc.Membership.Role})
	return nil
}

// DELETE /teams/{team}[?force=true]: 204, for owners; 409 while the team
// has records, unless forced, which deletes the records first (through
// kit's record service: hooks and audit events see each deletion).
func (a *Accounts) deleteTeam(w http.ResponseWriter, r *http.Request) error {
	acc, s, err := a.ownerAccess(r)
	if err != nil {
		return err
	}
	if a.Records != nil {
		has, err := a.Records.TeamHasRecords(r.Context(), acc.Team.ID)
		switch {
		case err != nil:
			return err
		case has && r.URL.Query().Get("force") != "true":
			return ErrTeamHasRecords
		case has:
			if err := a.Records.DeleteTeamRecords(r.Context(), acc.Team.ID, acc.User.ID); err != nil {
				return err
			}
		}
	}
	if err := s.DeleteTeam(r.Context(), acc.Team.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// GET /teams/{team}/members: for members.
func (a *Accounts) listMembers(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.Auth.ResolveTeamAndCheckMembership(r)
	if err != nil {
		return err
	}
	s, err := a.store()
	if err != nil {
		return err
	}
	ms, err := s.MemberInfos(r.Context(), acc.Team.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ms)
	return nil
}

// adminAccess resolves the route's team for an admin or owner.
func (a *Accounts) adminAccess(r *http.Request) (*Access, *Store, error) {
	acc, err := a.Auth.ResolveTeamAndCheckMembership(r)
	if err != nil {
		return nil, nil, err
	}
	if err := RequireRole(acc.Membership, RoleAdmin); err != nil {
		return nil, nil, err
	}
	s, err := a.store()
	return acc, s, err
}

func (a *Accounts) memberInfo(r *http.Request, s *Store, teamID, memberID string) (*MemberInfo, error) {
	ms, err := s.MemberInfos(r.Context(), teamID)
	if err != nil {
		return nil, err
	}
	for i := range ms {
		if ms[i].ID == memberID {
			return &ms[i], nil
		}
	}
	return nil, ErrMemberNotFound
}

// POST /teams/{team}/members {userId | email, role}: 201 with the member,
// for admins and owners; only owners may add an owner.
func (a *Accounts) addMember(w http.ResponseWriter, r *http.Request) error {
	acc, s, err := a.adminAccess(r)
	if err != nil {
		return err
	}
	var body struct {
		UserID string `json:"userId"`
		Email  string `json:"email"`
		Role   Role   `json:"role"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if (body.UserID == "") == (body.Email == "") {
		return errBadRequest("give exactly one of userId and email")
	}
	if !body.Role.Valid() {
		return ErrInvalidRole
	}
	if body.Role == RoleOwner && acc.Membership.Role != RoleOwner {
		return ErrOwnerRequired
	}
	var u *User
	if body.UserID != "" {
		u, err = s.User(r.Context(), body.UserID)
	} else {
		u, err = s.UserByEmail(r.Context(), body.Email)
	}
	if err != nil {
		return err
	}
	if _, err := s.Membership(r.Context(), acc.Team.ID, u.ID); err == nil {
		return ErrAlreadyMember
	}
	m, err := s.AddMember(r.Context(), acc.Team.ID, u.ID, body.Role)
	if err != nil {
		return err
	}
	info, err := a.memberInfo(r, s, acc.Team.ID, m.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, info)
	return nil
}

// PATCH /teams/{team}/members/{member} {role}: the member as changed, for
// admins and owners; only owners may grant or take away owner; the last
// owner cannot be demoted (409).
func (a *Accounts) patchMember(w http.ResponseWriter, r *http.Request) error {
	acc, s, err := a.adminAccess(r)
	if err != nil {
		return err
	}
	var body struct {
		Role Role `json:"role"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if !body.Role.Valid() {
		return ErrInvalidRole
	}
	target, err := s.MembershipByID(r.Context(), acc.Team.ID, r.PathValue("member"))
	if err != nil {
		return err
	}
	if (body.Role == RoleOwner || target.Role == RoleOwner) && acc.Membership.Role != RoleOwner {
		return ErrOwnerRequired
	}
	if _, err := s.SetMemberRole(r.Context(), acc.Team.ID, target.ID, body.Role); err != nil {
		return err
	}
	info, err := a.memberInfo(r, s, acc.Team.ID, target.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, info)
	return nil
}

// DELETE /teams/{team}/members/{member}: 204. A member may remove
// themselves (leave); admins and owners may remove others; only owners may
// remove an owner; the last owner cannot be removed (409).
func (a *Accounts) removeMember(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.Auth.ResolveTeamAndCheckMembership(r)
	if err != nil {
		return err
	}
	s, err := a.store()
	if err != nil {
		return err
	}
	id := r.PathValue("member")
	if id != acc.Membership.ID {
		if err := RequireRole(acc.Membership, RoleAdmin); err != nil {
			return err
		}
		target, err := s.MembershipByID(r.Context(), acc.Team.ID, id)
		if err != nil {
			return err
		}
		if target.Role == RoleOwner && acc.Membership.Role != RoleOwner {
			return ErrOwnerRequired
		}
	}
	if err := s.RemoveMembership(r.Context(), acc.Team.ID, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
