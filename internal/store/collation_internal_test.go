package store

import (
	"strings"
	"testing"
)

func TestSortKeyOfALongTextIsItsPrefixsKey(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"accents and case go", "Émile ZOLA", "emile zola"},
		{"a long text keeps its first 128 runes, folded", strings.Repeat("Ä", 10_000), strings.Repeat("a", maxSortKeyRunes)},
		{"a combining mark after the cut is not a rune of the key", strings.Repeat("e\u0301", 300), strings.Repeat("e", maxSortKeyRunes)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := sortKey(c.in); got != c.want {
				t.Errorf("got %q (%d bytes), want %q", got[:min(len(got), 40)], len(got), c.want[:min(len(c.want), 40)])
			}
		})
	}
}

// BenchmarkSortKey is the key of a 10 KB description, computed on every
// create and on every update that changes it.
func BenchmarkSortKey(b *testing.B) {
	text := strings.Repeat("Ein schönes Regal aus Eiche, geölt. ", 300)
	for b.Loop() {
		sortKey(text)
	}
}
