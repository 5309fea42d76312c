package wire

import (
	"net/url"
	"unicode"
)

// IsLinkURL reports whether s is a URL a page may use as a link or an
// image source: an absolute http(s) URL with a host, or a relative one
// ("/media/a.png", "a.png", "//cdn.example.com/a.png"). javascript:,
// data: and every other scheme are not, nor is a URL with white space or
// control characters (browsers drop tabs and line breaks, so
// "java\tscript:" runs as javascript:). The empty string is not a URL.
func IsLinkURL(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || unicode.IsSpace(r) || unicode.IsControl(r) {
			return false
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "":
		return true
	case "http", "https":
		return u.Host != ""
	}
	return false
}
