package teamauth

// CachedAccess answers what [Auth.ResolveTeamAndCheckMembership] would
// answer for a caller presenting the bearer token and the team idOrSlug,
// from the Store's cache alone, without a query. ok is false whenever the
// cache cannot answer in full: no entry for the token or the team, entries
// of different versions, a token whose use is due to be recorded, a
// banned user, a non-member, or a Store without a cache. The caller then
// asks ResolveTeamAndCheckMembership.
//
// The answer holds only while kit_auth_state's version is still version:
// the entries were read under it, and they are current only if no user,
// team, membership, token or session has changed since. The caller must
// confirm that before it acts on the answer or lets anything of it reach
// the caller: read the version in the same snapshot as its own data (a
// statement that reads [Store.AuthCounter] as a column) or by
// [Store.AuthVersion] after its reads, and, when the version differs,
// throw its work away and resolve the access again. Nothing the caller
// does before that may write.
func (s *Store) CachedAccess(token, idOrSlug string) (acc *Access, version int64, ok bool) {
	if s.uncached || !wellFormedToken(token) || idOrSlug == "" {
		return nil, 0, false
	}
	te, tv, ok := s.tokens.latest(hashToken(token))
	if !ok || te.user.Banned || te.lastUsed.IsZero() || s.clock().Sub(te.lastUsed) >= lastUsedEvery {
		return nil, 0, false
	}
	key := teamKey{team: idOrSlug, user: te.user.ID}
	if id, isID := canonicalUUID(idOrSlug); isID {
		key.team = id
	}
	me, mv, ok := s.teams.latest(key)
	if !ok || mv != tv || !me.member {
		return nil, 0, false
	}
	team, m, _ := me.result()
	u := te.user
	return &Access{Team: team, User: &u, Membership: m}, tv, true
}
