package store_test

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestVersionProbeRecordsWhatTheReadsSaw checks that each record read that
// takes a VersionProbe returns the probe's value with its rows, and that a
// read without a row records nothing (its caller must read the value
// itself).
func TestVersionProbeRecordsWhatTheReadsSaw(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		f := newFixture(t, e)
		id := f.insert(t, f.products, "t1", map[string]any{"title": "Lamp", "weight": 2.0})
		list := func(ctx context.Context, r store.Read, params url.Values) error {
			q, err := f.products.ParseListQuery(params, collections.QueryLimits{})
			if err != nil {
				return err
			}
			_, err = f.s.List(ctx, r, f.products, "t1", q)
			return err
		}
		tests := []struct {
			name string
			read func(ctx context.Context, r store.Read) error
			want bool // a value is recorded
		}{
			{"a get of a record records the value", func(ctx context.Context, r store.Read) error {
				_, err := f.s.Get(ctx, r, f.products, "t1", id)
				return err
			}, true},
			{"a get of a missing record records nothing", func(ctx context.Context, r store.Read) error {
				_, err := f.s.Get(ctx, r, f.products, "t1", "missing")
				if errors.Is(err, store.ErrNotFound) {
					return nil
				}
				return err
			}, false},
			{"a read by ids records the value", func(ctx context.Context, r store.Read) error {
				_, err := f.s.GetMany(ctx, r, f.products, "t1", []string{id})
				return err
			}, true},
			{"a page of the team records the value", func(ctx context.Context, r store.Read) error {
				return list(ctx, r, url.Values{})
			}, true},
			{"an empty page of another team records nothing", func(ctx context.Context, r store.Read) error {
				q, err := f.products.ParseListQuery(url.Values{}, collections.QueryLimits{})
				if err != nil {
					return err
				}
				_, err = f.s.List(ctx, r, f.products, "t2", q)
				return err
			}, false},
			{"a filtered page records the value", func(ctx context.Context, r store.Read) error {
				return list(ctx, r, url.Values{"filter": {`{"weight":{"gt":1}}`}})
			}, true},
			{"a filtered page without a match records the value with its count", func(ctx context.Context, r store.Read) error {
				return list(ctx, r, url.Values{"filter": {`{"weight":{"gt":5}}`}})
			}, true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := store.NewVersionProbe(subquery("(SELECT 4242)"))
				if err := tt.read(t.Context(), store.Read{Probe: p}); err != nil {
					t.Fatal(err)
				}
				v, ok := p.Value()
				if ok != tt.want || ok && v != 4242 {
					t.Errorf("got %d, %v; want 4242, %v", v, ok, tt.want)
				}
			})
		}
	})
}

// subquery is a store.Counter of a fixed scalar subquery.
type subquery string

func (q subquery) Subquery() string { return string(q) }
