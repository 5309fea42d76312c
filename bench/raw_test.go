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
