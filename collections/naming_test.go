package collections

import (
	"slices"
	"strings"
	"testing"
)

// inflections are singular/plural pairs that must round-trip through
// pluralize and singularize.
var inflections = []struct{ singular, plural string }{
	{"product", "products"},
	{"category", "categories"},
	{"company", "companies"},
	{"person", "people"},
	{"child", "children"},
	{"man", "men"},
	{"woman", "women"},
	{"mouse", "mice"},
	{"goose", "geese"},
	{"foot", "feet"},
	{"tooth", "teeth"},
	{"ox", "oxen"},
	{"leaf", "leaves"},
	{"shelf", "shelves"},
	{"wolf", "wolves"},
	{"drive", "drives"},
	{"knife", "knives"},
	{"life", "lives"},
	{"wife", "wives"},
	{"half", "halves"},
	{"analysis", "analyses"},
	{"criterion", "criteria"},
	{"status", "statuses"},
	{"bus", "buses"},
	{"box", "boxes"},
	{"index", "indexes"},
	{"address", "addresses"},
	{"class", "classes"},
	{"match", "matches"},
	{"wish", "wishes"},
	{"quiz", "quizzes"},
	{"buzz", "buzzes"},
	{"waltz", "waltzes"},
	{"day", "days"},
	{"key", "keys"},
	{"hero", "heroes"},
	{"potato", "potatoes"},
	{"tomato", "tomatoes"},
	{"echo", "echoes"},
	{"photo", "photos"},
	{"video", "videos"},
	{"roof", "roofs"},
	{"chief", "chiefs"},
	{"safe", "safes"},
	{"archive", "archives"},
	{"setting", "settings"},
	{"movie", "movies"},
	{"menu", "menus"},
	{"taxi", "taxis"},
	{"cache", "caches"},
	{"epoch", "epochs"},
	{"house", "houses"},
	{"cause", "causes"},
	{"use", "uses"},
	{"fuse", "fuses"},
	{"case", "cases"},
	{"response", "responses"},
	{"database", "databases"},
	{"alias", "aliases"},
	{"campus", "campuses"},
	{"size", "sizes"},
	{"shoe", "shoes"},
	{"employee", "employees"},
	{"value", "values"},
	{"crisis", "crises"},
	{"blogPost", "blogPosts"},
	{"teamMember", "teamMembers"},
	{"productCategory", "productCategories"},
	{"salesPerson", "salesPeople"},
	{"grandchild", "grandchildren"},
	{"orderStatus", "orderStatuses"},
	{"BlogPost", "BlogPosts"},
	{"pageURL", "pageURLs"},
}

func TestPluralizeAndSingularizeRoundTrip(t *testing.T) {
	for _, tc := range inflections {
		t.Run(tc.singular+" pluralizes to "+tc.plural, func(t *testing.T) {
			if got := pluralize(tc.singular); got != tc.plural {
				t.Errorf("pluralize(%q): got %q, want %q", tc.singular, got, tc.plural)
			}
		})
		t.Run(tc.plural+" singularizes to "+tc.singular, func(t *testing.T) {
			if got := singularize(tc.plural); got != tc.singular {
				t.Errorf("singularize(%q): got %q, want %q", tc.plural, got, tc.singular)
			}
		})
	}
}

func TestPluralizeLeavesUncountablesAndPluralsAlone(t *testing.T) {
	for _, w := range []string{"news", "series", "species", "equipment", "information",
		"feedback", "software", "metadata", "media", "data", "people", "children", "blogMetadata"} {
		t.Run(w+" is its own plural", func(t *testing.T) {
			if got := pluralize(w); got != w {
				t.Errorf("pluralize(%q): got %q, want %q", w, got, w)
			}
		})
	}
}

func TestSingularizeLeavesSingularsAlone(t *testing.T) {
	for _, w := range []string{"status", "bus", "address", "analysis", "class", "news", "series",
		"category", "person", "alias", "campus", "axis", "business", "orderStatus", "pageURL"} {
		t.Run(w+" stays "+w, func(t *testing.T) {
			if got := singularize(w); got != w {
				t.Errorf("singularize(%q): got %q, want %q", w, got, w)
			}
		})
	}
}

func TestIsPlural(t *testing.T) {
	tests := []struct {
		word string
		want bool
	}{
		{"products", true},
		{"categories", true},
		{"people", true},
		{"children", true},
		{"statuses", true},
		{"addresses", true},
		{"quizzes", true},
		{"heroes", true},
		{"news", true},
		{"equipment", true},
		{"metadata", true},
		{"settings", true},
		{"menus", true},
		{"blogPosts", true},
		{"teamMembers", true},
		{"pageURLs", true},
		{"product", false},
		{"category", false},
		{"person", false},
		{"status", false},
		{"bus", false},
		{"address", false},
		{"analysis", false},
		{"class", false},
		{"blogPost", false},
		{"orderStatus", false},
		{"", false},
	}
	for _, tc := range tests {
		name := tc.word + " is plural"
		if !tc.want {
			name = tc.word + " is not plural"
		}
		t.Run(name, func(t *testing.T) {
			if got := isPlural(tc.word); got != tc.want {
				t.Errorf("isPlural(%q): got %v, want %v", tc.word, got, tc.want)
			}
		})
	}
}

func TestNamingSplitCamel(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"products", []string{"products"}},
		{"blogPosts", []string{"blog", "Posts"}},
		{"BlogPosts", []string{"Blog", "Posts"}},
		{"blogPostURL", []string{"blog", "Post", "URL"}},
		{"HTMLPage", []string{"HTML", "Page"}},
		{"pageURLs", []string{"page", "URLs"}},
		{"userIDsList", []string{"user", "IDs", "List"}},
		{"address2Line", []string{"address2", "Line"}},
		{"blog_posts", []string{"blog", "posts"}},
		{"first-name", []string{"first", "name"}},
		{"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name+" splits into its words", func(t *testing.T) {
			if got := splitCamel(tc.name); !slices.Equal(got, tc.want) {
				t.Errorf("splitCamel(%q): got %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}

// wantFinding is an expected finding: its severity and a part of its message
// (usually the suggestion).
type wantFinding struct {
	severity Severity
	contains string
}

// checkFindings compares got with want in order and checks that only the
// fields the naming checks own are filled; field is the expected Field.
func checkFindings(t *testing.T, got []Finding, want []wantFinding, field string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d findings %v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Severity != w.severity {
			t.Errorf("finding %d: got severity %q, want %q (%s)", i, g.Severity, w.severity, g.Message)
		}
		if !strings.Contains(g.Message, w.contains) {
			t.Errorf("finding %d: got message %q, want it to contain %q", i, g.Message, w.contains)
		}
		if g.File != "" || g.Collection != "" {
			t.Errorf("finding %d: got File %q and Collection %q, want both empty", i, g.File, g.Collection)
		}
		if g.Field != field {
			t.Errorf("finding %d: got Field %q, want %q", i, g.Field, field)
		}
	}
}

func TestCheckCollectionName(t *testing.T) {
	tests := []struct {
		test string
		name string
		want []wantFinding
	}{
		{"a plural camelCase name is fine", "products", nil},
		{"a plural multi-word name is fine", "blogPosts", nil},
		{"an irregular plural is fine", "people", nil},
		{"an uncountable name is fine", "news", nil},
		{"a name ending in an uncountable word is fine", "productMetadata", nil},
		{"a name ending in a plural acronym is fine", "pageURLs", nil},
		{"id and url are not abbreviations", "urlIds", nil},
		{"an empty name is an error", "", []wantFinding{{SeverityError, "must not be empty"}}},
		{"a leading digit is an error", "2faCodes", []wantFinding{{SeverityError, "must start with a letter"}}},
		{"a non-ASCII letter is an error", "cafés", []wantFinding{{SeverityError, "must start with a letter"}}},
		{"a snake_case name is an error that suggests camelCase", "blog_posts", []wantFinding{{SeverityError, `must be camelCase (use "blogPosts")`}}},
		{"a kebab-case name is an error that suggests camelCase", "blog-posts", []wantFinding{{SeverityError, `(use "blogPosts")`}}},
		{"a name with spaces is an error that suggests camelCase", "blog posts", []wantFinding{{SeverityError, `(use "blogPosts")`}}},
		{"a PascalCase name is an error that suggests camelCase", "BlogPosts", []wantFinding{{SeverityError, `must be camelCase (use "blogPosts")`}}},
		{"a capitalized name is an error that suggests lower case", "Products", []wantFinding{{SeverityError, `(use "products")`}}},
		{"items is too generic", "items", []wantFinding{{SeverityError, `"items" is too generic`}}},
		{"data is too generic", "data", []wantFinding{{SeverityError, "too generic"}}},
		{"records is too generic", "records", []wantFinding{{SeverityError, "too generic"}}},
		{"list is too generic and not also singular", "list", []wantFinding{{SeverityError, "too generic"}}},
		{"generic names match case-insensitively", "dOcuments", []wantFinding{{SeverityError, "too generic"}}},
		{"a generic word inside a longer name is fine", "orderItems", nil},
		{"a singular name is an error that suggests the plural", "product", []wantFinding{{SeverityError, `collection name "product" must be plural (use "products")`}}},
		{"a singular multi-word name suggests pluralizing the last word", "blogPost", []wantFinding{{SeverityError, `(use "blogPosts")`}}},
		{"status is singular", "orderStatus", []wantFinding{{SeverityError, `(use "orderStatuses")`}}},
		{"a singular irregular suggests the irregular plural", "person", []wantFinding{{SeverityError, `(use "people")`}}},
		{"an abbreviation is a warning", "custOrders", []wantFinding{{SeverityWarning, `abbreviation "cust"; spell it out (e.g. "customer")`}}},
		{"an abbreviated last word is a warning", "productImgs", []wantFinding{{SeverityWarning, `abbreviation "Imgs"; spell it out (e.g. "images")`}}},
		{"a singular abbreviation is an error and a warning", "msg", []wantFinding{
			{SeverityError, `(use "msgs")`},
			{SeverityWarning, `(e.g. "message")`},
		}},
		{"each distinct abbreviation is warned about once", "usrOrgUsrOrgs", []wantFinding{
			{SeverityWarning, `"usr"`},
			{SeverityWarning, `"Org"`},
			{SeverityWarning, `"Orgs"`},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.test, func(t *testing.T) {
			checkFindings(t, checkCollectionName(tc.name), tc.want, "")
		})
	}
}

func TestCheckFieldName(t *testing.T) {
	tests := []struct {
		test   string
		name   string
		typ    FieldType
		hasRef bool
		want   []wantFinding
	}{
		{"a camelCase string field is fine", "firstName", TypeString, false, nil},
		{"a single-word field is fine", "title", TypeText, false, nil},
		{"a field with an acronym is fine", "websiteURL", TypeString, false, nil},
		{"auto-generated names are not flagged specially", "teamId", TypeString, false, nil},
		{"an empty name is an error", "", TypeString, false, []wantFinding{{SeverityError, "must not be empty"}}},
		{"a leading digit is an error", "1stName", TypeString, false, []wantFinding{{SeverityError, "must start with a letter"}}},
		{"a snake_case name is an error that suggests camelCase", "first_name", TypeString, false, []wantFinding{{SeverityError, `field name "first_name" must be camelCase (use "firstName")`}}},
		{"a PascalCase name is an error that suggests camelCase", "FirstName", TypeString, false, []wantFinding{{SeverityError, `(use "firstName")`}}},
		{"an upper-case snake name is an error that suggests camelCase", "FIRST_NAME", TypeString, false, []wantFinding{{SeverityError, `(use "firstName")`}}},
		{"a format error hides the convention warnings", "published_on", TypeDate, false, []wantFinding{{SeverityError, `(use "publishedOn")`}}},
		{"a date ending in At is fine", "publishedAt", TypeDate, false, nil},
		{"a date not ending in At is a warning", "published", TypeDate, false, []wantFinding{{SeverityWarning, `date field "published" should end in "At" (e.g. "publishedAt")`}}},
		{"a date ending in Date suggests replacing it with At", "dueDate", TypeDate, false, []wantFinding{{SeverityWarning, `(e.g. "dueAt")`}}},
		{"a date ending in On suggests replacing it with At", "publishedOn", TypeDate, false, []wantFinding{{SeverityWarning, `(e.g. "publishedAt")`}}},
		{"a non-date field need not end in At", "published", TypeString, false, nil},
		{"a boolean starting with is is fine", "isActive", TypeBoolean, false, nil},
		{"a boolean starting with has is fine", "hasStock", TypeBoolean, false, nil},
		{"a boolean starting with can is fine", "canEdit", TypeBoolean, false, nil},
		{"a boolean without a prefix is a warning", "active", TypeBoolean, false, []wantFinding{{SeverityWarning, `boolean field "active" should start with "is", "has" or "can" (e.g. "isActive")`}}},
		{"a boolean whose prefix runs into a word is a warning", "island", TypeBoolean, false, []wantFinding{{SeverityWarning, `(e.g. "isIsland")`}}},
		{"a non-boolean field needs no prefix", "active", TypeString, false, nil},
		{"a relationship ending in Id is fine", "authorId", TypeString, true, nil},
		{"a relationship not ending in Id is a warning", "author", TypeString, true, []wantFinding{{SeverityWarning, `relationship field "author" should end in "Id" (e.g. "authorId")`}}},
		{"a relationship ending in ID suggests Id", "authorID", TypeString, true, []wantFinding{{SeverityWarning, `(e.g. "authorId")`}}},
		{"a field without a refTarget need not end in Id", "author", TypeString, false, nil},
		{"an abbreviation is a warning", "qty", TypeNumber, false, []wantFinding{{SeverityWarning, `field name "qty" uses the abbreviation "qty"; spell it out (e.g. "quantity")`}}},
		{"an abbreviation inside a name is a warning", "productDesc", TypeText, false, []wantFinding{{SeverityWarning, `abbreviation "Desc"; spell it out (e.g. "description")`}}},
		{"info is allowed in a field name", "shippingInfo", TypeText, false, nil},
		{"several conventions can be broken at once", "pubDt", TypeDate, false, []wantFinding{
			{SeverityWarning, `(e.g. "pubDtAt")`},
			{SeverityWarning, `abbreviation "Dt"`},
		}},
		{"a boolean relationship gets both warnings", "owner", TypeBoolean, true, []wantFinding{
			{SeverityWarning, `(e.g. "isOwner")`},
			{SeverityWarning, `(e.g. "ownerId")`},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.test, func(t *testing.T) {
			checkFindings(t, checkFieldName(tc.name, tc.typ, tc.hasRef), tc.want, tc.name)
		})
	}
}

func TestCheckLayerName(t *testing.T) {
	tests := []struct {
		test string
		name string
		want []wantFinding
	}{
		{"a camelCase layer is fine", "shop", nil},
		{"a multi-word camelCase layer is fine", "customerSupport", nil},
		{"a singular layer is fine", "blog", nil},
		{"an empty layer name is an error", "", []wantFinding{{SeverityError, "layer name must not be empty"}}},
		{"a leading digit is an error", "2shop", []wantFinding{{SeverityError, "must start with a letter"}}},
		{"a snake_case layer is an error that suggests camelCase", "customer_support", []wantFinding{{SeverityError, `layer name "customer_support" must be camelCase (use "customerSupport")`}}},
		{"a PascalCase layer is an error that suggests camelCase", "Shop", []wantFinding{{SeverityError, `(use "shop")`}}},
		{"a dotted layer is an error that suggests camelCase", "shop.v2", []wantFinding{{SeverityError, `(use "shopV2")`}}},
	}
	for _, tc := range tests {
		t.Run(tc.test, func(t *testing.T) {
			checkFindings(t, checkLayerName(tc.name), tc.want, "")
		})
	}
}
