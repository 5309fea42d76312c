package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/internal/apierror"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// busyFront serves kit's API but refuses the next refuse requests with
// kit's own busy answer (kit.ErrBusy, or busy when set: 503 with a
// Retry-After header, written by kit); it counts the requests per method.
type busyFront struct {
	methodCounts
	k      *kit.Kit
	busy   error
	refuse atomic.Int32
}

func (f *busyFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.add(r.Method)
	if f.refuse.Add(-1) >= 0 {
		err := f.busy
		if err == nil {
			err = kit.ErrBusy
		}
		f.k.WriteError(w, r, err)
		return
	}
	f.k.Handler().ServeHTTP(w, r)
}

func TestBusyAnswersAreRetriedAfterTheirRetryAfter(t *testing.T) {
	s := newServer(t, testdb.EngineSQLite)
	for _, tc := range []struct {
		name         string
		refuse       int32
		busy         error
		opts         []client.Option
		timeout      time.Duration
		method       string
		wantOK       bool
		wantBusy     bool // the error is the busy answer, ErrUnavailable
		wantAttempts int
	}{
		{name: "a GET is retried until it gets through", refuse: 2, method: http.MethodGet, wantOK: true, wantAttempts: 3},
		{name: "a GET answers the busy error once its retries are spent", refuse: 3, method: http.MethodGet, wantBusy: true, wantAttempts: 3},
		{name: "a GET is not retried with busy retries off", refuse: 1, opts: []client.Option{client.WithBusyRetries(0)}, method: http.MethodGet, wantBusy: true, wantAttempts: 1},
		{name: "a GET is retried as often as asked", refuse: 3, opts: []client.Option{client.WithBusyRetries(3)}, method: http.MethodGet, wantOK: true, wantAttempts: 4},
		{name: "a POST is never retried", refuse: 1, method: http.MethodPost, wantBusy: true, wantAttempts: 1},
		{name: "a DELETE is retried: it is idempotent", refuse: 1, method: http.MethodDelete, wantAttempts: 2},
		{name: "a wait longer than MaxBusyWait is not waited for", refuse: 1, busy: &apierror.Busy{Message: "busy", After: time.Minute}, method: http.MethodGet, wantBusy: true, wantAttempts: 1},
		{name: "a wait past the context's deadline is not waited for", refuse: 1, timeout: 500 * time.Millisecond, method: http.MethodGet, wantBusy: true, wantAttempts: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			front := &busyFront{k: s.k, busy: tc.busy}
			mux := http.NewServeMux()
			mux.Handle("/api/", front)
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			c, err := client.New(srv.URL+"/api", append([]client.Option{client.WithToken(s.tokens["mia"])}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Collections(t.Context()); err != nil {
				t.Fatal(err)
			}
			notes := c.Team("acme").Collection("appNotes")
			ctx := t.Context()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			front.clear() // the registry's GET above does not count
			front.refuse.Store(tc.refuse)
			switch tc.method {
			case http.MethodGet:
				_, err = notes.List(ctx, client.Query{})
			case http.MethodPost:
				_, err = notes.Create(ctx, map[string]any{"body": "x"})
			case http.MethodDelete:
				err = notes.Delete(ctx, "01900000-0000-7000-8000-000000000000")
			}
			if (err == nil) != tc.wantOK {
				t.Errorf("got error %v, want success %v", err, tc.wantOK)
			}
			if got := errors.Is(err, client.ErrUnavailable); got != tc.wantBusy {
				t.Errorf("got the busy answer %v (%v), want %v", got, err, tc.wantBusy)
			}
			if tc.method == http.MethodDelete && !errors.Is(err, client.ErrNotFound) {
				t.Errorf("got %v, want the retried DELETE's own answer, ErrNotFound", err)
			}
			if got := front.count(tc.method); got != tc.wantAttempts {
				t.Errorf("got %d %s attempts, want %d", got, tc.method, tc.wantAttempts)
			}
			if tc.method == http.MethodPost {
				page, err := notes.List(t.Context(), client.Query{})
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range page.Items {
					if n["body"] == "x" {
						t.Errorf("got note %v, want none: the refused POST wrote nothing", n["id"])
					}
				}
			}
		})
	}
}
