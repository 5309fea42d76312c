package events_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// TestEventSizes measures stored events on the example schemas
// (examples/schemas) against the spec's Limits table: create about 500
// bytes, update 200-400, delete about 150. The stored size is the bytes of
// every column of the row, the timestamp as the engine stores it (SQLite:
// text; PostgreSQL: an 8-byte TIMESTAMPTZ), without the engine's per-row
// overhead.
func TestEventSizes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, testEventSizes)
}

func testEventSizes(t *testing.T, e testdb.Engine) {
	k, err := kit.New(kit.Config{DB: testdb.Open(t, e), Schemas: os.DirFS("../examples/schemas")})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if _, err := events.Install(t.Context(), k, events.Config{}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	team, _ := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	user, _ := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Alice Martin"})
	k.Accounts().AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner)
	token, _, _ := k.Accounts().CreateToken(ctx, user.ID, "sizes")
	srv := httptest.NewServer(k.Handler())
	defer srv.Close()

	clients := []struct {
		name, userAgent string
		max             map[string]int // upper bounds, bytes stored
	}{
		// A browser's user agent is the biggest metadata value.
		{"browser", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
			map[string]int{"create": 800, "update": 500, "delete": 450}},
		{"API client", "kit-sync/1.0", map[string]int{"create": 680, "update": 380, "delete": 320}},
	}
	for _, c := range clients {
		send := func(method, path, body string) string {
			t.Helper()
			req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("User-Agent", c.userAgent)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var rec map[string]any
			json.NewDecoder(res.Body).Decode(&rec)
			if res.StatusCode >= 300 {
				t.Fatalf("%s %s: got %d %v", method, path, res.StatusCode, rec)
			}
			id, _ := rec["id"].(string)
			return id
		}
		cat := send("POST", "/api/teams/acme/shop-categories", `{"title":"Hand tools `+c.name+`"}`)
		id := send("POST", "/api/teams/acme/shop-products", `{"title":"Claw hammer","description":"Steel claw hammer with a fibreglass handle.",
			"price":"24.90","stock":12,"tags":["tools","steel"],"categoryId":"`+cat+`"}`)
		send("PATCH", "/api/teams/acme/shop-products/"+id, `{"price":"22.50","stock":10}`)
		send("DELETE", "/api/teams/acme/shop-products/"+id, "")

		var rows []struct {
			Operation string `bun:"operation"`
			Stored    int    `bun:"stored"`
			Changes   string `bun:"changes"`
		}
		size := func(col string) string { return "length(CAST(" + col + " AS BLOB))" }
		timestamp := size(`"timestamp"`)
		if e == testdb.EnginePostgres {
			size = func(col string) string { return "octet_length(" + col + ")" }
			timestamp = "8"
		}
		sum := timestamp
		for _, col := range []string{"id", "team_id", "operation", "collection_name", "item_id", "user_id", "user_name", "changes", "metadata"} {
			sum += " + " + size(col)
		}
		err = k.DB().NewRaw(`SELECT operation, changes, `+sum+` AS stored
			FROM kit_events WHERE item_id = ? ORDER BY "timestamp", id`, id).Scan(ctx, &rows)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 3 {
			t.Fatalf("events: got %d, want 3", len(rows))
		}
		for _, r := range rows {
			t.Logf("%-10s %-6s stored %4d bytes (changes %3d)", c.name, r.Operation, r.Stored, len(r.Changes))
			if r.Stored > c.max[r.Operation] {
				t.Errorf("%s %s stored size: got %d bytes, want at most %d", c.name, r.Operation, r.Stored, c.max[r.Operation])
			}
		}
	}
}
