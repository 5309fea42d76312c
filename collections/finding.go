package collections

import (
	"fmt"
	"strings"
)

// Severity says whether a [Finding] stops a load (SeverityError) or is
// advice that a host may choose to ignore (SeverityWarning).
type Severity string

// The two severities a finding can have.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one problem found in a schema folder or a Go definition. It
// names the file (empty for Go definitions), the collection and, when the
// problem is in a field, the field.
type Finding struct {
	File       string   `json:"file,omitempty"`
	Collection string   `json:"collection,omitempty"`
	Field      string   `json:"field,omitempty"`
	Severity   Severity `json:"severity"`
	Message    string   `json:"message"`
}

// String formats the finding as "file: collection.field: message", the form
// `kit lint` prints. Parts that are empty are left out.
func (f Finding) String() string {
	var b strings.Builder
	if f.File != "" {
		b.WriteString(f.File)
		b.WriteString(": ")
	}
	switch {
	case f.Collection != "" && f.Field != "":
		fmt.Fprintf(&b, "%s.%s: ", f.Collection, f.Field)
	case f.Collection != "":
		fmt.Fprintf(&b, "%s: ", f.Collection)
	case f.Field != "":
		fmt.Fprintf(&b, "%s: ", f.Field)
	}
	if f.Severity == SeverityWarning {
		b.WriteString("warning: ")
	}
	b.WriteString(f.Message)
	return b.String()
}
