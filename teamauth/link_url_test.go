package teamauth

import (
	"strings"
	"testing"
)

func urlField(field string) []string {
	return []string{`"status":400`, `"fields":{"` + field + `":"must be an http(s) URL or a relative one"}`}
}

// TestLinkURLsTakeOnlyHTTPAndRelativeURLs: a team's avatarUrl and a
// user's image end up in <img src> and links; a script or data URL is a
// 400 naming the field and writes nothing.
func TestLinkURLsTakeOnlyHTTPAndRelativeURLs(t *testing.T) {
	var tests []refusal
	for _, bad := range []string{"javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:image/svg+xml;base64,PHN2Zz4=",
		"vbscript:msgbox", "java\\tscript:alert(1)", "https:///no-host", "file:///etc/passwd", " javascript:alert(1)"} {
		body := strings.ReplaceAll(bad, `"`, `\"`)
		tests = append(tests,
			refusal{name: "a new team's avatarUrl " + bad + " is a 400 naming avatarUrl",
				call: call{method: "POST", path: "/api/teams", as: "member", body: `{"name":"New","avatarUrl":"` + body + `"}`}, status: 400, contains: urlField("avatarUrl")},
			refusal{name: "a team's avatarUrl changed to " + bad + " is a 400 naming avatarUrl",
				call: call{method: "PATCH", path: "/api/teams/acme", as: "owner", body: `{"avatarUrl":"` + body + `"}`}, status: 400, contains: urlField("avatarUrl")},
			refusal{name: "a user's image changed to " + bad + " is a 400 naming image",
				call: call{method: "PATCH", path: "/api/me", as: "member", body: `{"image":"` + body + `"}`}, status: 400, contains: urlField("image")},
		)
	}
	runRefusals(t, AccountsConfig{TeamCreation: TeamCreationUsers}, tests)
}

func TestCheckLinkURLAcceptsHTTPAndRelativeURLs(t *testing.T) {
	for _, ok := range []string{"", "https://cdn.example.com/a.png", "http://example.com/x?y=1#z", "/media/a.png", "a.png", "../up/a.png", "//cdn.example.com/a.png"} {
		s := ok
		if err := checkLinkURL("image", &s); err != nil {
			t.Errorf("%q: got %v, want it accepted", ok, err)
		}
	}
}
