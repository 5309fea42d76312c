package kit_test

import (
	"reflect"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
)

func TestLimitsFillsInEveryDefault(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits collections.QueryLimits
		want   func(d collections.QueryLimits) collections.QueryLimits
	}{
		{"a zero Config gets every default", collections.QueryLimits{},
			func(d collections.QueryLimits) collections.QueryLimits { return d }},
		{"a field the host set is kept and the others get their defaults", collections.QueryLimits{MaxSortKeys: 7},
			func(d collections.QueryLimits) collections.QueryLimits { d.MaxSortKeys = 7; return d }},
		{"a negative field gets its default", collections.QueryLimits{MaxFilterBytes: -1},
			func(d collections.QueryLimits) collections.QueryLimits { return d }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKitConfig(t, kit.Config{SQLitePath: memPath(t), Limits: tc.limits})
			got := k.Config().Limits
			v := reflect.ValueOf(got)
			for i := range v.NumField() {
				if v.Field(i).Int() <= 0 {
					t.Errorf("Config().Limits.%s: got %d, want a positive limit", v.Type().Field(i).Name, v.Field(i).Int())
				}
			}
			if want := tc.want(collections.DefaultQueryLimits()); got != want {
				t.Errorf("Config().Limits: got %+v, want %+v", got, want)
			}
		})
	}
}
