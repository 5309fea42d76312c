package kit

import "testing"

func TestConfigSearchScansReachesTheStore(t *testing.T) {
	cases := []struct {
		name string
		set  int
	}{
		{"the zero value leaves the store's default", 0},
		{"a set value is the store's slot count", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k, err := Open(t.Context(), Config{SQLitePath: ":memory:" + t.Name(), SearchScans: c.set})
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			if got := k.store.SearchScans; got != c.set {
				t.Errorf("got store.SearchScans %d, want %d", got, c.set)
			}
		})
	}
}

func TestConfigTotalsCacheReachesTheStore(t *testing.T) {
	cases := []struct {
		name string
		set  int
	}{
		{"the zero value leaves the store's default", 0},
		{"a set value is the store's size", 7},
		{"a negative value turns it off", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k, err := Open(t.Context(), Config{SQLitePath: ":memory:" + t.Name(), TotalsCache: c.set})
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			if got := k.store.TotalsCache; got != c.set {
				t.Errorf("got store.TotalsCache %d, want %d", got, c.set)
			}
		})
	}
}
