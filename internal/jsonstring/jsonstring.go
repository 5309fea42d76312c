package jsonstring

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Append appends s quoted exactly as encoding/json writes it without HTML
// escaping (an Encoder with SetEscapeHTML(false)): printable ASCII and
// valid UTF-8 other than U+2028 and U+2029 are copied as they are;
// a string with anything else goes through encoding/json.
func Append(b []byte, s string) []byte {
	i := plainPrefix(s)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				return appendEncodedString(b, s)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return appendEncodedString(b, s)
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainPrefix returns the length of a prefix of s, in whole 8-byte words,
// whose bytes encoding/json copies as they are: ASCII, not a control
// character, a quote or a backslash. It may end a word before the first
// byte that is not (see special), never after it.
func plainPrefix(s string) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		t := s[i : i+8]
		w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		// special has a byte's high bit set when the byte is not ASCII
		// (w's own high bit) or, in a word of ASCII bytes, at the lowest
		// byte below 0x20 and the lowest '"' and '\\' (x - ones sets the
		// high bit of the lowest zero byte of x; bytes above a borrow may
		// be marked too, which only ends the prefix early).
		quote, backslash := w^(ones*'"'), w^(ones*'\\')
		special := (w - ones*0x20) | (quote - ones) | (backslash - ones) | w
		if special&highs != 0 {
			break
		}
	}
	return i
}

// appendEncodedString appends s as encoding/json encodes it without HTML
// escaping.
func appendEncodedString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, buf.Bytes()[:buf.Len()-1]...)
}
