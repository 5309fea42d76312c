package client_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/collectionkit/kit/client"
	"github.com/collectionkit/kit/internal/testdb"
)

// plainText is a transport that sends every body as text/plain, to make
// the server answer 415.
type plainText struct{}

func (plainText) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Content-Type", "text/plain")
	return http.DefaultTransport.RoundTrip(r)
}

func TestErrorStatusesMatchTheirSentinels(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		s := newServer(t, e)
		id := s.seed(t, "mia", "shopProducts", map[string]any{"title": "Lamp", "sku": "L-1", "price": "1.00"})
		products := func(c *client.Client) *client.Collection { return c.Team("acme").Collection("shopProducts") }
		mia := s.client(t, "mia")
		for _, tc := range []struct {
			name     string
			call     func(ctx context.Context) error
			status   int
			sentinel error
		}{
			{"an unknown field is 400 ErrBadRequest", func(ctx context.Context) error {
				_, err := products(mia).Create(ctx, map[string]any{"title": "X", "colour": "red"})
				return err
			}, 400, client.ErrBadRequest},
			{"an unknown token is 401 ErrUnauthorized", func(ctx context.Context) error {
				c, _ := client.New(s.srv.URL+"/api", client.WithToken("kit_not-a-real-token"))
				_, err := products(c).List(ctx, client.Query{})
				return err
			}, 401, client.ErrUnauthorized},
			{"no credentials is 401 ErrUnauthorized", func(ctx context.Context) error {
				_, err := products(s.client(t, "")).List(ctx, client.Query{})
				return err
			}, 401, client.ErrUnauthorized},
			{"another team's collection is 403 ErrForbidden", func(ctx context.Context) error {
				_, err := mia.Team("globex").Collection("shopProducts").List(ctx, client.Query{})
				return err
			}, 403, client.ErrForbidden},
			{"an unknown team is 404 ErrNotFound", func(ctx context.Context) error {
				_, err := mia.Team("nope").Collection("shopProducts").List(ctx, client.Query{})
				return err
			}, 404, client.ErrNotFound},
			{"a wrong method is 405 ErrMethodNotAllowed", func(ctx context.Context) error {
				return mia.Do(ctx, http.MethodPut, "/teams/acme/shop-products/"+id, nil, map[string]any{}, nil)
			}, 405, client.ErrMethodNotAllowed},
			{"a used unique value is 409 ErrConflict", func(ctx context.Context) error {
				_, err := products(mia).Create(ctx, map[string]any{"title": "Y", "sku": "L-1"})
				return err
			}, 409, client.ErrConflict},
			{"a refused If-Match is 412 ErrPrecondition", func(ctx context.Context) error {
				_, err := products(mia).Update(ctx, id, map[string]any{"title": "Z"}, client.IfMatch(`"stale"`))
				return err
			}, 412, client.ErrPrecondition},
			{"a body over the limit is 413 ErrTooLarge", func(ctx context.Context) error {
				_, err := products(mia).Create(ctx, map[string]any{"title": strings.Repeat("x", 5000)})
				return err
			}, 413, client.ErrTooLarge},
			{"a body that is not JSON is 415 ErrUnsupportedMediaType", func(ctx context.Context) error {
				c := s.client(t, "mia", client.WithHTTPClient(&http.Client{Transport: plainText{}}))
				_, err := products(c).Create(ctx, map[string]any{"title": "W"})
				return err
			}, 415, client.ErrUnsupportedMediaType},
			{"a host's rate limiter is 429 ErrTooManyRequests", func(ctx context.Context) error {
				_, err := products(s.client(t, "lim")).List(ctx, client.Query{})
				return err
			}, 429, client.ErrTooManyRequests},
			{"an unexpected failure is 500 ErrServer", func(ctx context.Context) error {
				_, err := products(mia).Create(ctx, map[string]any{"title": "boom"})
				return err
			}, 500, client.ErrServer},
		} {
			t.Run(tc.name, func(t *testing.T) {
				err := tc.call(t.Context())
				wantStatus(t, err, tc.status, tc.sentinel)
				var kerr *client.Error
				if errors.As(err, &kerr) {
					if kerr.StatusText != http.StatusText(tc.status) {
						t.Errorf("got statusText %q, want %q", kerr.StatusText, http.StatusText(tc.status))
					}
					if kerr.Message == "" {
						t.Errorf("got an empty message, want kit's message")
					}
					if errors.Is(err, client.ErrNotFound) != (tc.status == 404) {
						t.Errorf("errors.Is(err, ErrNotFound) = %v for status %d", !(tc.status == 404), tc.status)
					}
				}
			})
		}
		t.Run("a closed server is 503 ErrUnavailable, which is also ErrServer", func(t *testing.T) {
			closed := newServer(t, e)
			c := closed.client(t, "mia")
			if _, err := c.Collections(t.Context()); err != nil {
				t.Fatal(err)
			}
			closed.k.Close()
			_, err := c.Team("acme").Collection("appNotes").List(t.Context(), client.Query{})
			wantStatus(t, err, http.StatusServiceUnavailable, client.ErrUnavailable)
			if !errors.Is(err, client.ErrServer) {
				t.Errorf("errors.Is(%v, ErrServer) = false, want true", err)
			}
		})
		t.Run("a validation failure carries the per-field messages", func(t *testing.T) {
			_, err := products(mia).Create(t.Context(), map[string]any{"price": "1.00"})
			var kerr *client.Error
			if !errors.As(err, &kerr) {
				t.Fatalf("got %v, want a *client.Error", err)
			}
			if kerr.Fields()["title"] == "" {
				t.Errorf("got data %v, want a message for title", kerr.Data)
			}
		})
	})
}
