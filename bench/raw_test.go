package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRawWritesKeepTheWALBounded proves that the baseline's creates and
// updates let SQLite's WAL auto-checkpoint run (writeReturning), as every
// SQLite server must: through QueryRow ... RETURNING the WAL grew by every
// page of every write and never started over.
func TestRawWritesKeepTheWALBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raw.db")
	db, err := openRawSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, ddl := range rawSchema(false) {
		if _, err := db.Exec(ddl); err != nil {
			t.Fatal(err)
		}
	}
	s := &rawServer{db: db, token: []byte("t"), userID: "u", teams: map[string]bool{"acme": true}}
	h := s.routes()
	do := func(method, path, body string, want int) string {
		t.Helper()
		r := httptest.NewRequest(method, "/api/teams/acme/shop-products"+path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer t")
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Fatalf("%s %s: got %d, want %d: %s", method, path, w.Code, want, w.Body)
		}
		return w.Header().Get("Location")
	}
	walSize := func() int64 {
		st, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	// SQLite checkpoints once the WAL holds 1,000 pages (4 MiB), and the
	// WAL then starts over, staying near that size; without the
	// checkpoints, 3,000 creates and then 3,000 updates leave it several
	// times larger.
	const limit = 8 << 20
	var ids []string
	for i := range 3000 {
		loc := do(http.MethodPost, "", fmt.Sprintf(`{"title":"T %d","sku":"S-%d","description":"d","price":1.5,"stock":1,"isActive":true}`, i, i), http.StatusCreated)
		ids = append(ids, loc[strings.LastIndex(loc, "/")+1:])
	}
	if got := walSize(); got > limit {
		t.Errorf("after 3,000 creates: a WAL of %d bytes, want at most %d", got, limit)
	}
	for i := range 3000 {
		do(http.MethodPatch, "/"+ids[(i*7)%len(ids)], fmt.Sprintf(`{"stock":%d}`, i), http.StatusOK)
	}
	if got := walSize(); got > limit {
		t.Errorf("after 3,000 updates: a WAL of %d bytes, want at most %d", got, limit)
	}
}

// TestRawAuditWritesOneRowPerChange proves that the raw-audit server does
// the work it stands for: each create, update and delete commits one audit
// row with the changed fields' old and new values, and a failed write
// leaves none.
func TestRawAuditWritesOneRowPerChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raw.db")
	db, err := openRawSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, ddl := range append(rawSchema(false), rawAuditSchema(false)...) {
		if _, err := db.Exec(ddl); err != nil {
			t.Fatal(err)
		}
	}
	s := &rawServer{db: db, token: []byte("t"), userID: "u", teams: map[string]bool{"acme": true}, audit: true}
	h := s.routes()
	do := func(method, path, body string) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequest(method, "/api/teams/acme/shop-products"+path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer t")
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	last := func() (op, changes string) {
		t.Helper()
		if err := db.QueryRow("SELECT operation, changes FROM bench_audit ORDER BY id DESC LIMIT 1").Scan(&op, &changes); err != nil {
			t.Fatal(err)
		}
		return op, changes
	}
	count := func() (n int) {
		t.Helper()
		if err := db.QueryRow("SELECT count(*) FROM bench_audit").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	res := do(http.MethodPost, "", `{"title":"Saw","sku":"S-1","stock":3}`)
	if res.Code != http.StatusCreated {
		t.Fatalf("create: got %d, want 201: %s", res.Code, res.Body)
	}
	loc := res.Header().Get("Location")
	id := loc[strings.LastIndex(loc, "/")+1:]
	steps := []struct {
		name, method, path, body string
		status                   int
		rows                     int
		op, changes              string
	}{
		{"a create writes the new values", "", "", "", 201, 1, "create",
			`[{"fieldName":"title","oldValue":null,"newValue":"Saw"},{"fieldName":"sku","oldValue":null,"newValue":"S-1"},{"fieldName":"stock","oldValue":null,"newValue":"3"}]`},
		{"an update writes only the changed field", http.MethodPatch, "/" + id, `{"stock":4,"title":"Saw"}`, 200, 2, "update",
			`[{"fieldName":"stock","oldValue":"3","newValue":"4"}]`},
		{"an update of a missing record writes nothing", http.MethodPatch, "/missing", `{"stock":5}`, 404, 2, "update",
			`[{"fieldName":"stock","oldValue":"3","newValue":"4"}]`},
		{"a delete writes the old values", http.MethodDelete, "/" + id, "", 204, 3, "delete",
			`[{"fieldName":"title","oldValue":"Saw","newValue":null},{"fieldName":"sku","oldValue":"S-1","newValue":null},{"fieldName":"stock","oldValue":"4","newValue":null}]`},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.method != "" {
				if res := do(st.method, st.path, st.body); res.Code != st.status {
					t.Fatalf("got %d, want %d: %s", res.Code, st.status, res.Body)
				}
			}
			if got := count(); got != st.rows {
				t.Errorf("audit rows: got %d, want %d", got, st.rows)
			}
			if op, changes := last(); op != st.op || changes != st.changes {
				t.Errorf("last audit row: got %s %s, want %s %s", op, changes, st.op, st.changes)
			}
		})
	}
}
