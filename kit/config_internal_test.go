package kit

import "testing"

// TestConfigStoreSettingsReachTheStore checks that the Config fields kit
// hands to its store arrive there as set, the zero value included (the
// store's own default applies).
func TestConfigStoreSettingsReachTheStore(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		got  func(k *Kit) int
		want int
	}{
		{"SearchScans' zero value leaves the store's default", Config{}, func(k *Kit) int { return k.store.SearchScans }, 0},
		{"a set SearchScans is the store's slot count", Config{SearchScans: 3}, func(k *Kit) int { return k.store.SearchScans }, 3},
		{"TotalsCache's zero value leaves the store's default", Config{}, func(k *Kit) int { return k.store.TotalsCache }, 0},
		{"a set TotalsCache is the store's size", Config{TotalsCache: 7}, func(k *Kit) int { return k.store.TotalsCache }, 7},
		{"a negative TotalsCache turns it off", Config{TotalsCache: -1}, func(k *Kit) int { return k.store.TotalsCache }, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.SQLitePath = ":memory:" + t.Name()
			k, err := Open(t.Context(), c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			if got := c.got(k); got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
		})
	}
}
