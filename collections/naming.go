package collections

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	gopluralize "github.com/gertd/go-pluralize"
)

// This file holds the naming rules of the specification: English
// pluralization (pluralize, singularize, isPlural) and the checks for
// collection, field and layer names. The English rules are those of
// github.com/gertd/go-pluralize (the rules of the npm package pluralize);
// kit only splits camelCase names into words and inflects the last one.

// english is the inflection client every name goes through. It is built
// once by newEnglish and only read afterwards, which is safe from several
// goroutines: lookups read its maps and compiled expressions.
var english = newEnglish()

// newEnglish returns the library's rules with kit's few decisions added:
//   - "data" and "metadata" are mass nouns in software, so a "metadata"
//     collection is plural and its type is Metadata, not Metadatum;
//   - "feedback" is a mass noun and "species" its own singular;
//   - "index" makes "indexes", the plural used for database indexes;
//   - "cache" and "fuse" end in "e" (the library would give "cach" and
//     "fus" back from "caches" and "fuses"), "epoch" makes "epochs" and
//     "waltz" "waltzes", and "axes" is the plural of "axis".
//
// Each decision has a case in naming_test.go or typenames_test.go.
func newEnglish() *gopluralize.Client {
	c := gopluralize.NewClient()
	for _, w := range []string{"data", "metadata", "feedback", "species"} {
		c.AddUncountableRule(w)
	}
	c.AddIrregularRule("index", "indexes")
	c.AddIrregularRule("cache", "caches")
	c.AddIrregularRule("fuse", "fuses")
	c.AddIrregularRule("epoch", "epochs")
	c.AddIrregularRule("waltz", "waltzes")
	c.AddIrregularRule("axis", "axes")
	return c
}

// pluralize returns the English plural of word. In a camelCase word only the
// last word is inflected ("blogPost" becomes "blogPosts") and the case of
// the rest is kept; an all-capitals last word is treated as an acronym
// ("pageURL" becomes "pageURLs"). Uncountable words ("news", "metadata")
// and irregular plurals ("people") are returned unchanged.
func pluralize(word string) string {
	return inflectLastWord(word, pluralizeWord, true)
}

// singularize returns the English singular of word, inverting [pluralize]:
// "categories" becomes "category", "statuses" "status", "people" "person"
// and "blogPosts" "blogPost". Words that are already singular ("status",
// "address", "analysis") and uncountable words ("news") are returned
// unchanged.
func singularize(word string) string {
	return inflectLastWord(word, singularizeWord, false)
}

// isPlural reports whether the last camelCase word of word is an English
// plural ("products", "people", "blogPosts", "pageURLs") or has no
// separate plural ("news", "equipment"). "status", "bus", "address" and
// "pageURL" are not plural.
func isPlural(word string) bool {
	words := splitCamel(word)
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	switch {
	case isAcronymPlural(last):
		return true
	case isAcronym(last):
		return false
	}
	if english.IsPlural(strings.ToLower(last)) {
		return true
	}
	s := singularize(word) // "taxis": the library's test misses some plurals it makes
	return s != word && pluralize(s) == word
}

// inflectLastWord applies inflect to the last camelCase word of word,
// restoring its capitalization, and keeps everything before it.
func inflectLastWord(word string, inflect func(string) string, plural bool) string {
	words := splitCamel(word)
	if len(words) == 0 {
		return word
	}
	last := words[len(words)-1]
	if !strings.HasSuffix(word, last) {
		return word // ends in a separator such as "_"
	}
	prefix := word[:len(word)-len(last)]
	switch {
	case isAcronym(last):
		if plural {
			return prefix + last + "s"
		}
		return word
	case isAcronymPlural(last):
		if plural {
			return word
		}
		return prefix + last[:len(last)-1]
	}
	out := inflect(strings.ToLower(last))
	if r, _ := utf8.DecodeRuneInString(last); unicode.IsUpper(r) {
		out = upperFirst(out)
	}
	return prefix + out
}

// isAcronym reports whether w is two or more capital letters (and digits),
// such as "URL" or "API".
func isAcronym(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			if !unicode.IsUpper(r) {
				return false
			}
			letters++
		}
	}
	return letters >= 2
}

// isAcronymPlural reports whether w is an acronym followed by a lower-case
// "s", such as "URLs" or "IDs".
func isAcronymPlural(w string) bool {
	return len(w) >= 3 && w[len(w)-1] == 's' && isAcronym(w[:len(w)-1])
}

// pluralizeWord pluralizes a single lower-case word.
func pluralizeWord(w string) string { return english.Plural(w) }

// singularizeWord singularizes a single lower-case word.
func singularizeWord(w string) string { return english.Singular(w) }

// upperFirst returns s with its first rune in upper case.
func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// splitCamel splits a camelCase or PascalCase name into its words:
// "blogPost" gives blog, Post; "pageURL" gives page, URL; "HTMLPage" gives
// HTML, Page; "pageURLs" gives page, URLs. Digits stay with the word before
// them. Characters other than letters and digits separate words and are
// dropped ("blog_posts" gives blog, posts).
func splitCamel(name string) []string {
	runes := []rune(name)
	var words []string
	start := -1
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if start >= 0 {
				words = append(words, string(runes[start:i]))
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		if !unicode.IsUpper(r) {
			continue
		}
		prev := runes[i-1]
		split := unicode.IsLower(prev) || unicode.IsDigit(prev)
		if unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]) {
			// "HTMLPage": the P starts a new word; "URLs" stays one word.
			pluralS := runes[i+1] == 's' && (i+2 == len(runes) || !unicode.IsLower(runes[i+2]))
			split = !pluralS
		}
		if split {
			words = append(words, string(runes[start:i]))
			start = i
		}
	}
	if start >= 0 {
		words = append(words, string(runes[start:]))
	}
	return words
}

// nameGeneric are collection names that say nothing about what the
// collection holds.
var nameGeneric = map[string]bool{
	"items": true, "data": true, "records": true, "entries": true,
	"objects": true, "things": true, "stuff": true, "elements": true,
	"values": true, "entities": true, "resources": true, "collections": true,
	"list": true, "lists": true, "info": true, "misc": true, "documents": true,
}

// nameAbbreviations maps abbreviations that names should spell out to the
// word they stand for. "id" and "url" are not here: they are words.
var nameAbbreviations = map[string]string{
	"usr": "user", "cfg": "configuration", "conf": "configuration", "msg": "message",
	"msgs": "messages", "img": "image", "imgs": "images", "qty": "quantity",
	"desc": "description", "addr": "address", "num": "number",
	"amt": "amount", "btn": "button", "pwd": "password", "passwd": "password",
	"tmp": "temporary", "val": "value", "vals": "values", "cnt": "count",
	"prod": "product", "prods": "products", "cust": "customer",
	"custs": "customers", "dt": "date", "ts": "timestamp", "ref": "reference",
	"refs": "references", "attr": "attribute", "attrs": "attributes",
	"param": "parameter", "params": "parameters", "org": "organization",
	"orgs": "organizations", "dept": "department", "mgr": "manager",
	"txn": "transaction", "txns": "transactions", "acct": "account",
	"accts": "accounts", "idx": "index", "pos": "position", "str": "string",
	"obj": "object", "objs": "objects", "arr": "array",
}

// checkCollectionName checks a collection name against the naming rules:
// a camelCase identifier, not generic, plural, without abbreviations. The
// findings carry only Severity and Message. A name that is not a camelCase
// identifier or is generic gets that one error and no further findings.
func checkCollectionName(name string) []Finding {
	if msg := nameFormatProblem("collection", name); msg != "" {
		return []Finding{{Severity: SeverityError, Message: msg}}
	}
	if nameGeneric[strings.ToLower(name)] {
		return []Finding{{Severity: SeverityError, Message: fmt.Sprintf(
			"collection name %q is too generic; name what it holds (e.g. \"products\", \"blogPosts\")", name)}}
	}
	var out []Finding
	words := splitCamel(name)
	if !isPlural(words[len(words)-1]) {
		out = append(out, Finding{Severity: SeverityError, Message: fmt.Sprintf(
			"collection name %q must be plural (use %q)", name, pluralize(name))})
	}
	for _, msg := range nameAbbreviationProblems("collection name", name, words) {
		out = append(out, Finding{Severity: SeverityWarning, Message: msg})
	}
	return out
}

// checkFieldName checks a field name against the naming rules: errors when
// it is not a camelCase identifier (and then nothing else), warnings when a
// date does not end in "At", a boolean does not start with "is", "has" or
// "can", a relationship (hasRefTarget) does not end in "Id", or a word is
// an abbreviation. The findings carry only Field,
// Severity and Message.
func checkFieldName(name string, typ FieldType, hasRefTarget bool) []Finding {
	if msg := nameFormatProblem("field", name); msg != "" {
		return []Finding{{Field: name, Severity: SeverityError, Message: msg}}
	}
	var msgs []string
	switch typ {
	case TypeDate:
		if !strings.HasSuffix(name, "At") {
			msgs = append(msgs, fmt.Sprintf("date field %q should end in \"At\" (e.g. %q)", name, dateFieldSuggestion(name)))
		}
	case TypeBoolean:
		if !hasBooleanPrefix(name) {
			msgs = append(msgs, fmt.Sprintf("boolean field %q should start with \"is\", \"has\" or \"can\" (e.g. %q)", name, "is"+upperFirst(name)))
		}
	}
	if hasRefTarget {
		if !strings.HasSuffix(name, "Id") {
			msgs = append(msgs, fmt.Sprintf("relationship field %q should end in \"Id\" (e.g. %q)", name, refFieldSuggestion(name)))
		}
	}
	msgs = append(msgs, nameAbbreviationProblems("field name", name, splitCamel(name))...)
	var out []Finding
	for _, msg := range msgs {
		out = append(out, Finding{Field: name, Severity: SeverityWarning, Message: msg})
	}
	return out
}

// checkLayerName checks a layer directory name: it must be a camelCase
// identifier. The findings carry only Severity and Message.
func checkLayerName(name string) []Finding {
	if msg := nameFormatProblem("layer", name); msg != "" {
		return []Finding{{Severity: SeverityError, Message: msg}}
	}
	return nil
}

// nameFormatProblem returns why name is not a camelCase identifier (kind is
// "collection", "field" or "layer"), or "" when it is one.
func nameFormatProblem(kind, name string) string {
	if name == "" {
		return kind + " name must not be empty"
	}
	if isCamelIdentifier(name) {
		return ""
	}
	if s := camelForm(name); s != "" && s != name {
		return fmt.Sprintf("%s name %q must be camelCase (use %q)", kind, name, s)
	}
	if !isIdentifier(name) {
		return fmt.Sprintf("%s name %q must start with a letter and contain only ASCII letters and digits", kind, name)
	}
	return fmt.Sprintf("%s name %q must be camelCase", kind, name)
}

// isIdentifier reports whether name matches ^[A-Za-z][A-Za-z0-9]*$.
func isIdentifier(name string) bool {
	if name == "" || !isASCIILetter(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !isASCIILetter(name[i]) && (name[i] < '0' || name[i] > '9') {
			return false
		}
	}
	return true
}

// isCamelIdentifier reports whether name is an identifier starting with a
// lower-case letter.
func isCamelIdentifier(name string) bool {
	return isIdentifier(name) && name[0] >= 'a' && name[0] <= 'z'
}

func isASCIILetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// camelForm returns the camelCase form of a snake_case, kebab-case,
// spaced or PascalCase name ("blog_posts" and "BlogPosts" give
// "blogPosts"), or "" when there is none (e.g. a leading digit).
func camelForm(name string) string {
	var b strings.Builder
	for i, w := range splitCamel(name) {
		w = strings.ToLower(w)
		if i > 0 {
			w = upperFirst(w)
		}
		b.WriteString(w)
	}
	if s := b.String(); isCamelIdentifier(s) {
		return s
	}
	return ""
}

// hasBooleanPrefix reports whether name starts with "is", "has" or "can"
// followed by an upper-case letter.
func hasBooleanPrefix(name string) bool {
	for _, p := range []string{"is", "has", "can"} {
		if len(name) > len(p) && strings.HasPrefix(name, p) && name[len(p)] >= 'A' && name[len(p)] <= 'Z' {
			return true
		}
	}
	return false
}

// dateFieldSuggestion turns a date field name into one ending in "At":
// "published" gives "publishedAt", "dueDate" and "publishedOn" give
// "dueAt" and "publishedAt".
func dateFieldSuggestion(name string) string {
	words := splitCamel(name)
	if len(words) > 1 {
		switch words[len(words)-1] {
		case "Date", "Time", "On", "Timestamp":
			return strings.TrimSuffix(name, words[len(words)-1]) + "At"
		}
	}
	return name + "At"
}

// refFieldSuggestion turns a relationship field name into one ending in
// "Id": "author" gives "authorId", "authorID" gives "authorId".
func refFieldSuggestion(name string) string {
	if s, ok := strings.CutSuffix(name, "ID"); ok && s != "" {
		return s + "Id"
	}
	return name + "Id"
}

// nameAbbreviationProblems returns one message for each distinct word of
// name (split into words) that is a known abbreviation. what is
// "collection name" or "field name".
func nameAbbreviationProblems(what, name string, words []string) []string {
	var msgs []string
	seen := map[string]bool{}
	for _, w := range words {
		lw := strings.ToLower(w)
		full, ok := nameAbbreviations[lw]
		if !ok || seen[lw] {
			continue
		}
		seen[lw] = true
		msgs = append(msgs, fmt.Sprintf("%s %q uses the abbreviation %q; spell it out (e.g. %q)", what, name, w, full))
	}
	return msgs
}
