package teamauth

import (
	"strings"

	"github.com/google/uuid"
)

// maxSlugLen bounds a team slug.
const maxSlugLen = 64

// validSlug reports whether s follows the slug rules (see ErrInvalidSlug).
func validSlug(s string) bool {
	if s == "" || len(s) > maxSlugLen || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	// A slug may not parse as a UUID in any form uuid.Parse accepts
	// (with or without hyphens), so an id and a slug never collide.
	_, err := uuid.Parse(s)
	return err != nil
}

// slugify makes a slug candidate from a team name: lower-case ASCII letters
// and digits kept, every other run of characters turned into one hyphen.
// The result may still be invalid (empty, or too long); the caller checks.
func slugify(name string) string {
	var b strings.Builder
	hyphen := false
	for _, c := range strings.ToLower(name) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(c)
		default:
			hyphen = true
		}
	}
	return b.String()
}

// canonicalUUID returns s in canonical lower-case form when it is a UUID in
// the 36-character hyphenated form, and false otherwise.
func canonicalUUID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return u.String(), true
}
