package collections

import "testing"

// lookAlikeSKUs are seven spellings of one SKU that a reader cannot tell
// apart or would call the same: NFC, NFD, lower case, upper case,
// fullwidth letters, a zero-width space inside and a word joiner at the
// end.
var lookAlikeSKUs = []string{
	"SKU-caf\u00e9",
	"SKU-cafe\u0301",
	"sku-caf\u00e9",
	"SKU-CAF\u00c9",
	"\uff33\uff2b\uff35-caf\u00e9",
	"SKU\u200b-caf\u00e9",
	"SKU-caf\u00e9\u2060",
}

// TestUniqueKeyMakesLookAlikesCollide checks the comparison key of
// meta.uniqueIgnoreCase: every look-alike spelling has the key of the
// first, and texts a reader tells apart keep different keys.
func TestUniqueKeyMakesLookAlikesCollide(t *testing.T) {
	want := UniqueKey(lookAlikeSKUs[0])
	if want != "sku-caf\u00e9" {
		t.Errorf("key of %+q: got %+q, want %+q", lookAlikeSKUs[0], want, "sku-caf\u00e9")
	}
	for _, s := range lookAlikeSKUs[1:] {
		t.Run("the look-alike "+s+" has the same key", func(t *testing.T) {
			if got := UniqueKey(s); got != want {
				t.Errorf("key of %+q: got %+q, want %+q", s, got, want)
			}
		})
	}
	more := []struct{ name, a, b string }{
		{"German sharp s folds to ss", "STRASSE", "stra\u00dfe"},
		{"a soft hyphen is ignored", "SKU1", "SKU\u00ad1"},
		{"a byte order mark is ignored", "\ufeffSKU1", "SKU1"},
		{"a zero-width joiner is ignored", "SK\u200dU1", "SKU1"},
		{"a variation selector is ignored", "SKU1\ufe0f", "SKU1"},
	}
	for _, tc := range more {
		t.Run(tc.name, func(t *testing.T) {
			if ka, kb := UniqueKey(tc.a), UniqueKey(tc.b); ka != kb {
				t.Errorf("keys of %+q and %+q: got %+q and %+q, want them equal", tc.a, tc.b, ka, kb)
			}
		})
	}
	distinct := []struct{ name, a, b string }{
		{"an accent still counts", "SKU-cafe", "SKU-caf\u00e9"},
		{"a visible space still counts", "SKU 1", "SKU1"},
		{"a different digit still counts", "SKU-1", "SKU-2"},
		{"an Arabic number sign is visible and counts", "\u06001", "1"},
	}
	for _, tc := range distinct {
		t.Run(tc.name, func(t *testing.T) {
			if ka, kb := UniqueKey(tc.a), UniqueKey(tc.b); ka == kb {
				t.Errorf("keys of %+q and %+q: got %+q for both, want them different", tc.a, tc.b, ka)
			}
		})
	}
}
