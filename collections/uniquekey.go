package collections

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// UniqueKey is the value a field with meta.uniqueIgnoreCase is kept
// unique by: s in normalization form NFKC (which maps compatibility forms
// such as fullwidth "ＳＫＵ" to "SKU"), with Unicode case folding, without
// default-ignorable code points (zero-width space, joiners, U+FEFF,
// U+2060, soft hyphen, variation selectors, ...), and in NFKC again, as
// removing a code point can leave a sequence to compose. Two values whose
// keys are equal are the same value to the field's uniqueness. The key
// depends only on s and on the Unicode version of golang.org/x/text, never
// on a database's locale.
func UniqueKey(s string) string {
	folded := cases.Fold().String(norm.NFKC.String(s))
	if strings.IndexFunc(folded, defaultIgnorable) >= 0 {
		folded = strings.Map(func(r rune) rune {
			if defaultIgnorable(r) {
				return -1
			}
			return r
		}, folded)
	}
	return norm.NFKC.String(folded)
}

// defaultIgnorable reports whether r has the Unicode property
// Default_Ignorable_Code_Point, derived as DerivedCoreProperties.txt does:
// Other_Default_Ignorable_Code_Point, format characters (Cf) and variation
// selectors, less white space, the interlinear annotation and Egyptian
// hieroglyph format controls and the prepended concatenation marks.
func defaultIgnorable(r rune) bool {
	switch {
	case unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r), unicode.Is(unicode.Variation_Selector, r):
		return true
	case !unicode.Is(unicode.Cf, r), unicode.Is(unicode.White_Space, r), unicode.Is(unicode.Prepended_Concatenation_Mark, r):
		return false
	case r >= 0xFFF9 && r <= 0xFFFB, r >= 0x13430 && r <= 0x1343F:
		return false
	}
	return true
}
