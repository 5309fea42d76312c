package limiter

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
)

func TestLimiterAnswers429AfterTheBurstThroughKit(t *testing.T) {
	now := time.Unix(0, 0)
	lim := New(1, 3)
	lim.now = func() time.Time { return now }
	k, err := kit.New(kit.Config{
		SQLitePath:  ":memory:" + t.Name(),
		Definitions: []collections.Definition{{Name: "tasks", Fields: []collections.Field{{Name: "title", Type: "string"}}}},
		Middleware:  []func(http.Handler) http.Handler{lim.Middleware},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	srv := httptest.NewServer(k.Handler())
	defer srv.Close()

	var got []int
	for range 5 {
		res, err := http.Get(srv.URL + "/api/kit/collections")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got = append(got, res.StatusCode)
	}
	want := []int{401, 401, 401, 429, 429}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("statuses: got %v, want %v", got, want)
		}
	}
	now = now.Add(time.Second)
	res, err := http.Get(srv.URL + "/api/kit/collections")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("after a second: got %d, want a refilled token (401 from auth)", res.StatusCode)
	}
}

func TestRefusedRequestsCarryRetryAfterAndTheErrorShape(t *testing.T) {
	lim := New(0.5, 1)
	h := lim.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 429 {
		t.Fatalf("status: got %d, want 429", rec.Code)
	}
	if got := rec.Header().Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After: got %q, want %q", got, "2")
	}
	if body := rec.Body.String(); !strings.Contains(body, `"status":429`) || !strings.Contains(body, `"statusText":"Too Many Requests"`) {
		t.Errorf("body: got %s, want kit's error shape", body)
	}
}
