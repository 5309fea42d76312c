package wire

import (
	"errors"
	"testing"
)

func TestTheTextRule(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		checkJSON error  // CheckJSONText's answer
		problem   string // JSONTextProblem's answer
	}{
		{"plain text passes", `{"a":"b"}`, nil, ""},
		{"a surrogate pair is one character and passes", `{"a":"\ud83d\ude00"}`, nil, ""},
		{"an escaped backslash before u0000 is no NUL", `{"a":"\\u0000"}`, nil, ""},
		{"a NUL escape passes CheckJSONText but is a NUL problem", `{"a":"x\u0000"}`, nil, ProblemNUL},
		{"a NUL escape in a key is a NUL problem", `{"\u0000":1}`, nil, ProblemNUL},
		{"a raw NUL byte is a NUL problem", "{\"a\":\"\x00\"}", nil, ProblemNUL},
		{"a lone high surrogate is refused", `{"a":"\ud800"}`, ErrLoneSurrogate, ProblemSurrogate},
		{"a high surrogate before a non-surrogate escape is refused", `{"a":"\ud800\u0041"}`, ErrLoneSurrogate, ProblemSurrogate},
		{"a lone low surrogate is refused", `{"a":"\uDC00"}`, ErrLoneSurrogate, ProblemSurrogate},
		{"a lone surrogate after a NUL is still found", `{"a":"\u0000\ud800"}`, ErrLoneSurrogate, ProblemSurrogate},
		{"bytes that are not UTF-8 are refused", "{\"a\":\"\xff\"}", ErrInvalidUTF8, ProblemUTF8},
		{"an overlong encoding is refused", "{\"a\":\"\xc0\xaf\"}", ErrInvalidUTF8, ProblemUTF8},
		{"a truncated escape is left to the decoder", `{"a":"\u00`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CheckJSONText([]byte(tt.raw)); !errors.Is(got, tt.checkJSON) || (got == nil) != (tt.checkJSON == nil) {
				t.Errorf("CheckJSONText: got %v, want %v", got, tt.checkJSON)
			}
			if got := JSONTextProblem([]byte(tt.raw)); got != tt.problem {
				t.Errorf("JSONTextProblem: got %q, want %q", got, tt.problem)
			}
		})
	}
}

func TestADecodedTextHoldsNoNULAndOnlyUTF8(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"team", ""}, {"é", ""}, {"a\x00", ProblemNUL}, {"\xff", ProblemUTF8}, {"\xed\xa0\x80", ProblemUTF8},
	} {
		if got := TextProblem(tt.in); got != tt.want {
			t.Errorf("TextProblem(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAJSONBodyIsDeclaredAsUTF8JSON(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		plusJSON    bool
		want        error
	}{
		{"application/json is JSON", "application/json", false, nil},
		{"charset=utf-8 in any case is JSON", "Application/JSON; Charset=UTF-8", false, nil},
		{"a +json type is JSON where allowed", "application/merge-patch+json", true, nil},
		{"a +json type is not JSON where not allowed", "application/merge-patch+json", false, ErrNotJSON},
		{"no Content-Type is not JSON", "", true, ErrNotJSON},
		{"text/plain is not JSON", "text/plain", true, ErrNotJSON},
		{"UTF-16 JSON is refused", "application/json; charset=utf-16", true, ErrCharset},
		{"utf8 without the hyphen is refused", "application/json; charset=utf8", true, ErrCharset},
		{"an empty charset is refused", `application/json; charset=""`, true, ErrCharset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CheckJSONContentType(tt.contentType, tt.plusJSON); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
