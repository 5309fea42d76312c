package openapi

import "net/http"

// The component schemas of kit's own routes.
const (
	schemaMe          = "KitMe"
	schemaTeam        = "KitTeam"
	schemaMember      = "KitMember"
	schemaToken       = "KitToken"
	schemaNewToken    = "KitCreatedToken"
	schemaUser        = "KitUser"
	schemaUserPage    = "KitUserPage"
	schemaTeamPage    = "KitTeamPage"
	schemaCollections = "KitCollections"
)

func str() Schema              { return Schema{"type": "string"} }
func dateTime() Schema         { return Schema{"type": "string", "format": "date-time"} }
func nullable(s Schema) Schema { s["type"] = []any{s["type"], "null"}; return s }
func arrayOf(s Schema) Schema  { return Schema{"type": "array", "items": s} }
func roleSchema() Schema       { return Schema{"type": "string", "enum": []any{"owner", "admin", "member"}} }
func object(props Schema, required ...string) Schema {
	req := make([]any, len(required))
	for i, r := range required {
		req[i] = r
	}
	s := Schema{"type": "object", "properties": props}
	if len(req) > 0 {
		s["required"] = req
	}
	return s
}

// addMetaRoutes describes kit's metadata endpoints.
func addMetaRoutes(d *Document, o Options) error {
	d.Components.Schemas[schemaCollections] = Schema{"type": "object", "description": "the registry in the kitCollections shape: each collection's config by registry key",
		"additionalProperties": Schema{"type": "object"}}
	tags := []string{"kit"}
	d.Tags = append(d.Tags, Tag{Name: "kit", Description: "the registry and the API's own description"})
	return addAll(d, []routeOp{
		{http.MethodGet, o.Prefix + "/kit/collections", (&Operation{OperationID: "kitCollections", Tags: tags,
			Summary:     "The registered collections' configs",
			Description: "The registry as clients read it: each collection's config (apiPath, fields, display, layout, fetch strategy, references) by registry key.",
			Responses:   map[string]*Response{"200": JSONResponse("the registry", Ref(schemaCollections))},
		}).AddErrors(401, 403, 500)},
		{http.MethodGet, o.Prefix + "/kit/collections/{key}/schema", (&Operation{OperationID: "kitCollectionSchema", Tags: tags,
			Summary:     "A collection's JSON Schema (draft 2020-12)",
			Description: "The JSON Schema of one collection's records, every attribute with its type and the auto-generated ones read-only; an unknown key is a 404.",
			Parameters: []*Parameter{{Name: "key", In: "path", Required: true, Description: "the registry key",
				Schema: Schema{"type": "string"}}},
			Responses: map[string]*Response{"200": {Description: "the schema",
				Content: map[string]MediaType{"application/schema+json": {Schema: Schema{"type": "object"}}}}},
		}).AddErrors(401, 403, 404, 500)},
		{http.MethodGet, o.Prefix + "/kit/openapi.json", (&Operation{OperationID: "kitOpenAPI", Tags: tags,
			Summary:     "This document: the OpenAPI 3.1 description of the API",
			Description: "The OpenAPI 3.1 document of this server's API as it is now: its collections, kit's own routes and those its add-ons describe.",
			Responses:   map[string]*Response{"200": JSONResponse("the document", Schema{"type": "object"})},
		}).AddErrors(401, 403, 500)},
	})
}

// accountDescriptions is the description of each accounts operation, by
// operation id.
var accountDescriptions = map[string]string{
	"login": "Checks the email and password and starts a session: the answer sets the session cookie and carries the user. " +
		"An unknown email and a wrong password answer the same 401; a banned user 403; failed attempts are counted per " +
		"account and per client address, and past the limit the answer is 429 with Retry-After.",
	"logout": "Ends the caller's session, if any, and deletes the cookie. Always 204, also without a session.",
	"getMe":  "The signed-in user (by token, session or the host's own authentication) and the teams they belong to, with their role in each.",
	"patchMe": "Changes the caller's name or image; any other field is a 400, and so is an empty name. " +
		"Answers the caller as GET /me does.",
	"changePassword": "Checks the current password (403 when wrong) and sets the new one, which must follow the password rules " +
		"(a 400 names the rule it breaks). The caller's other sessions end; a caller signed in by cookie gets a new one.",
	"listTokens":     "The caller's API tokens, newest first, with when each was last used and revoked. Secrets are never shown again.",
	"createToken":    "Creates an API token for the caller. The answer carries its secret (kit_...), which kit stores only as a hash: it is shown this once.",
	"revokeToken":    "Revokes one of the caller's tokens: requests with it are refused from then on. Another user's token answers 404.",
	"getUser":        "The user, as GET /me answers them; only that user may read it (403 for anyone else).",
	"listUserTokens": "The user's API tokens, as GET /me/tokens answers them; only that user may read them (403 for anyone else).",
	"createTeam": "Creates a team whose owner is the caller. Who may create teams is the server's setting (super-admins by " +
		"default, or every user); a slug that is taken is a 409.",
	"getTeam":      "The team and the caller's role in it; for members only (a team the caller does not belong to answers 403 or 404).",
	"patchTeam":    "Changes the team's name, slug, description, avatar or settings; owners only. A slug that is taken is a 409.",
	"deleteTeam":   "Deletes the team; owners only. While the team has records the answer is 409, unless force=true, which first deletes them through the record service (hooks and audit events see each).",
	"listMembers":  "The team's members with their roles; for members only.",
	"addMember":    "Adds a user to the team by userId or email with a role; admins and owners, and only owners grant owner. An unknown user is a 404, a member already there a 409.",
	"patchMember":  "Changes a member's role; admins and owners, and only owners grant or take away owner. The last owner cannot be demoted (409).",
	"removeMember": "Removes a member from the team; admins and owners, or a member leaving. The last owner cannot be removed (409).",
	"superAdminListUsers": "Every user of the server, oldest first, a page at a time; search keeps those whose name or email contains it " +
		"(case-insensitive). Super-admins only.",
	"superAdminGetUser":   "One user of the server with their role and ban; super-admins only.",
	"superAdminPatchUser": "Bans or unbans a user (a ban ends their sessions) or changes their global role; super-admins only. Banning or demoting oneself is a 409.",
	"superAdminListTeams": "Every team of the server, oldest first, a page at a time; search keeps those whose name or slug contains it (case-insensitive). Super-admins only.",
}

// addAccountRoutes describes teamauth's accounts routes as kit mounts
// them.
func addAccountRoutes(d *Document, o Options) error {
	meTeam := object(Schema{"id": str(), "name": str(), "slug": str(), "avatarUrl": str(), "role": roleSchema()},
		"id", "name", "slug", "avatarUrl", "role")
	schemas := map[string]Schema{
		schemaMe: object(Schema{"id": str(), "name": str(), "email": str(), "image": str(), "role": str(),
			"teams": arrayOf(meTeam)}, "id", "name", "email", "image", "role"),
		schemaTeam: object(Schema{"id": str(), "name": str(), "slug": str(), "description": str(), "avatarUrl": str(),
			"settings": nullable(Schema{"type": "object"}), "createdAt": dateTime(), "role": roleSchema()},
			"id", "name", "slug", "description", "avatarUrl", "createdAt"),
		schemaMember: object(Schema{"id": str(), "userId": str(), "name": str(), "image": str(), "role": roleSchema(),
			"createdAt": dateTime()}, "id", "userId", "name", "image", "role", "createdAt"),
		schemaToken: object(Schema{"id": str(), "userId": str(), "name": str(), "createdAt": dateTime(),
			"lastUsedAt": nullable(dateTime()), "revokedAt": nullable(dateTime())}, "id", "userId", "name", "createdAt"),
		schemaUser: object(Schema{"id": str(), "name": str(), "email": str(), "role": str(), "banned": Schema{"type": "boolean"},
			"image": str(), "createdAt": dateTime()}, "id", "name", "email", "role", "banned", "image", "createdAt"),
	}
	schemas[schemaNewToken] = Schema{"allOf": []any{Ref(schemaToken),
		object(Schema{"token": Schema{"type": "string", "description": "the secret, shown once"}}, "token")}}
	schemas[schemaUserPage] = object(Schema{"items": arrayOf(Ref(schemaUser)), "pagination": Ref(SchemaPagination)}, "items", "pagination")
	schemas[schemaTeamPage] = object(Schema{"items": arrayOf(Ref(schemaTeam)), "pagination": Ref(SchemaPagination)}, "items", "pagination")
	for name, s := range schemas {
		if err := d.AddSchema(name, s); err != nil {
			return err
		}
	}
	d.Tags = append(d.Tags, Tag{Name: "accounts", Description: "sign-in, the caller, teams and members, super-admin"})

	// route builds one accounts operation. own marks the routes that need
	// kit's account tables: 501 with a host's own Directory.
	route := func(method, path, id, summary string, own bool, params []*Parameter, body Schema, ok string, res *Response, errs ...int) routeOp {
		op := &Operation{OperationID: id, Summary: summary, Description: accountDescriptions[id], Tags: []string{"accounts"},
			Parameters: params, Responses: map[string]*Response{ok: res}}
		if body != nil {
			op.RequestBody = JSONBody(body)
			errs = append(errs, 400, 413, 415)
		}
		if own && o.HostDirectory {
			errs = append(errs, 501)
		}
		op.AddErrors(append(errs, 500)...)
		return routeOp{method, o.Prefix + path, op}
	}
	noBody := func(desc string) *Response { return &Response{Description: desc} }
	team := []*Parameter{ParamRef(ParamTeam)}
	user := []*Parameter{{Name: "user", In: "path", Required: true, Description: "a user id", Schema: str()}}
	pathID := func(desc string) []*Parameter {
		return []*Parameter{{Name: "id", In: "path", Required: true, Description: desc, Schema: str()}}
	}
	member := append(append([]*Parameter(nil), team...), &Parameter{Name: "member", In: "path", Required: true,
		Description: "a membership id (id in the member list), not a user id", Schema: str()})
	paging := []*Parameter{
		{Name: "search", In: "query", Schema: str()},
		{Name: "page", In: "query", Schema: Schema{"type": "integer", "minimum": 1}},
		{Name: "pageSize", In: "query", Schema: Schema{"type": "integer", "minimum": 1, "maximum": 100}},
	}
	login := route(http.MethodPost, "/auth/login", "login", "Sign in with email and password; sets the session cookie", true, nil,
		object(Schema{"email": str(), "password": str()}, "email", "password"), "200", JSONResponse("the user, as GET /me", Ref(schemaMe)), 401, 403, 429)
	login.op.Public = true
	login.op.Responses["200"].Headers = map[string]*Header{"Set-Cookie": {Description: "the session cookie " + o.CookieName + " (HttpOnly, SameSite=Lax)", Schema: str()}}
	logout := route(http.MethodPost, "/auth/logout", "logout", "Sign out: end the session and delete the cookie", false, nil, nil, "204", noBody("signed out"), 403)
	logout.op.Public = true
	deleteTeam := route(http.MethodDelete, "/teams/{team}", "deleteTeam", "Delete the team (owners)", true, team, nil, "204", noBody("deleted"), 401, 403, 404, 409)
	deleteTeam.op.Parameters = append(append([]*Parameter(nil), team...), &Parameter{Name: "force", In: "query",
		Description: "true first deletes the team's records through the record service", Schema: Schema{"type": "string", "enum": []any{"true", "false"}}})
	return addAll(d, []routeOp{
		login, logout,
		route(http.MethodGet, "/me", "getMe", "The caller and their teams", false, nil, nil, "200", JSONResponse("the caller", Ref(schemaMe)), 401, 403),
		route(http.MethodPatch, "/me", "patchMe", "Change the caller's name or image", true, nil,
			Schema{"type": "object", "additionalProperties": false, "properties": Schema{"name": str(), "image": str()}},
			"200", JSONResponse("the caller", Ref(schemaMe)), 401, 403),
		route(http.MethodPost, "/me/password", "changePassword", "Change the caller's password; other sessions end", true, nil,
			object(Schema{"currentPassword": str(), "newPassword": str()}, "currentPassword", "newPassword"), "204", noBody("changed"), 401, 403, 429),
		route(http.MethodGet, "/me/tokens", "listTokens", "The caller's API tokens (no secrets)", true, nil, nil, "200", JSONResponse("the tokens", arrayOf(Ref(schemaToken))), 401, 403),
		route(http.MethodPost, "/me/tokens", "createToken", "Create an API token; its secret is shown once", true, nil,
			object(Schema{"name": str()}, "name"), "201", JSONResponse("the token with its secret", Ref(schemaNewToken)), 401, 403),
		route(http.MethodDelete, "/me/tokens/{id}", "revokeToken", "Revoke one of the caller's tokens", true, pathID("a token id"), nil, "204", noBody("revoked"), 401, 403, 404),
		route(http.MethodGet, "/users/{user}", "getUser", "The user, for that user only", true, user, nil, "200", JSONResponse("the user", Ref(schemaMe)), 401, 403),
		route(http.MethodGet, "/users/{user}/tokens", "listUserTokens", "The user's tokens, for that user only", true, user, nil, "200", JSONResponse("the tokens", arrayOf(Ref(schemaToken))), 401, 403),
		route(http.MethodPost, "/teams", "createTeam", "Create a team; the caller becomes its owner", true, nil,
			object(Schema{"name": str(), "slug": str(), "description": str(), "avatarUrl": str(), "settings": Schema{"type": "object"}}, "name"),
			"201", JSONResponse("the team", Ref(schemaTeam)), 401, 403, 409),
		route(http.MethodGet, "/teams/{team}", "getTeam", "The team and the caller's role in it", false, team, nil, "200", JSONResponse("the team", Ref(schemaTeam)), 401, 403, 404),
		route(http.MethodPatch, "/teams/{team}", "patchTeam", "Change the team (owners)", true, team,
			Schema{"type": "object", "additionalProperties": false, "properties": Schema{"name": str(), "slug": str(),
				"description": str(), "avatarUrl": str(), "settings": Schema{"type": "object"}}},
			"200", JSONResponse("the team", Ref(schemaTeam)), 401, 403, 404, 409),
		deleteTeam,
		route(http.MethodGet, "/teams/{team}/members", "listMembers", "The team's members", true, team, nil, "200", JSONResponse("the members", arrayOf(Ref(schemaMember))), 401, 403, 404),
		route(http.MethodPost, "/teams/{team}/members", "addMember", "Add a member (admins, owners)", true, team,
			Schema{"type": "object", "additionalProperties": false, "properties": Schema{"userId": str(), "email": str(), "role": roleSchema()}, "required": []any{"role"}},
			"201", JSONResponse("the member", Ref(schemaMember)), 401, 403, 404, 409),
		route(http.MethodPatch, "/teams/{team}/members/{member}", "patchMember", "Change a member's role (admins, owners)", true, member,
			object(Schema{"role": roleSchema()}, "role"), "200", JSONResponse("the member", Ref(schemaMember)), 401, 403, 404, 409),
		route(http.MethodDelete, "/teams/{team}/members/{member}", "removeMember", "Remove a member (admins, owners; a member themselves)", true, member, nil,
			"204", noBody("removed"), 401, 403, 404, 409),
		route(http.MethodGet, "/super-admin/users", "superAdminListUsers", "Every user (super-admins)", true, paging, nil, "200", JSONResponse("a page of users", Ref(schemaUserPage)), 400, 401, 403),
		route(http.MethodGet, "/super-admin/users/{id}", "superAdminGetUser", "One user (super-admins)", true, pathID("a user id"), nil, "200", JSONResponse("the user", Ref(schemaUser)), 401, 403, 404),
		route(http.MethodPatch, "/super-admin/users/{id}", "superAdminPatchUser", "Ban, unban or change a user's role (super-admins)", true, pathID("a user id"),
			Schema{"type": "object", "additionalProperties": false, "properties": Schema{"banned": Schema{"type": "boolean"}, "role": str()}},
			"200", JSONResponse("the user", Ref(schemaUser)), 401, 403, 404, 409),
		route(http.MethodGet, "/super-admin/teams", "superAdminListTeams", "Every team (super-admins)", true, paging, nil, "200", JSONResponse("a page of teams", Ref(schemaTeamPage)), 400, 401, 403),
	})
}
