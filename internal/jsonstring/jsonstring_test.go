package jsonstring

import (
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/wire"
)

func TestAppendJSONStringEscapesASpecialByteAtEveryPositionOfTheWord(t *testing.T) {
	specials := []string{"\"", "\\", "\x00", "\x1f", "\n", "\x7f", "<", "é", "\u2028", "\xff", "\x80", "\x9f"}
	for _, sp := range specials {
		for n := range 26 {
			for at := 0; at <= n; at++ {
				s := strings.Repeat("a", at) + sp + strings.Repeat("b", n-at)
				want, err := wire.Encode(s)
				if err != nil {
					t.Fatal(err)
				}
				if got := string(Append(nil, s)); got != string(want[:len(want)-1]) {
					t.Errorf("%q: got %s, want %s", s, got, want[:len(want)-1])
				}
			}
		}
	}
}
