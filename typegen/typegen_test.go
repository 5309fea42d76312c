package typegen_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/typegen"
)

func TestGenerateRefuses(t *testing.T) {
	tests := []struct {
		name    string
		schemas fstest.MapFS
		lang    typegen.Lang
		opts    typegen.Options
		is      error  // nil: only the message is checked
		message string // what the error says
	}{
		{"an unknown language", fstest.MapFS{"notes.json": {Data: []byte(`{"body": {"type": "text"}}`)}},
			"rust", typegen.Options{}, typegen.ErrUnknownLang, `typegen: unknown language "rust" (want go, ts, vue)`},
		{"a collection whose Go type is a shared declaration", fstest.MapFS{"decimals.json": {Data: []byte(`{"value": {"type": "text"}}`)}},
			typegen.LangGo, typegen.Options{}, typegen.ErrNameCollision, "go output would declare Decimal twice"},
		{"a collection whose TypeScript type is a shared declaration", fstest.MapFS{"paginations.json": {Data: []byte(`{"value": {"type": "text"}}`)}},
			typegen.LangTS, typegen.Options{}, typegen.ErrNameCollision, "ts output would declare Pagination twice"},
		{"a Go package name that is a keyword", fstest.MapFS{"notes.json": {Data: []byte(`{"body": {"type": "text"}}`)}},
			typegen.LangGo, typegen.Options{Package: "func"}, nil, `typegen: "func" is not a Go package name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, _, err := collections.Load(tt.schemas, collections.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out, err := typegen.Generate(reg, tt.lang, tt.opts)
			if err == nil {
				t.Fatalf("got no error and %d bytes, want an error saying %q", len(out), tt.message)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("got error %v, want one that matches %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("got error %q, want it to say %q", err, tt.message)
			}
			if out != nil {
				t.Errorf("got output %q with the error, want none", out)
			}
		})
	}
}

// TestEachFieldTypeMapsToItsDeclaredType reads the record and input
// declarations of testdata/schemas' samples (every field type, required
// and optional) in each language.
func TestEachFieldTypeMapsToItsDeclaredType(t *testing.T) {
	reg := load(t, "testdata/schemas")
	gen := map[typegen.Lang]string{}
	for _, l := range typegen.Langs() {
		b, err := typegen.Generate(reg, l, typegen.Options{})
		if err != nil {
			t.Fatal(err)
		}
		gen[l] = string(b)
	}
	tests := []struct {
		field             string
		goRecord, goInput string // Go: the field's line in Sample and SampleInput
		tsRecord, tsInput string // TypeScript: the same in the interfaces
	}{
		{"label (string, required)", "Label string `json:\"label\"`", "Label string `json:\"label\"`", "label: string", "label: string"},
		{"nickname (string)", "Nickname *string `json:\"nickname\"`", "Nickname *string `json:\"nickname,omitempty\"`", "nickname: string | null", "nickname?: string | null"},
		{"summary (text, required)", "Summary string `json:\"summary\"`", "Summary string `json:\"summary\"`", "summary: string", "summary: string"},
		{"quantity (number, required)", "Quantity float64 `json:\"quantity\"`", "Quantity float64 `json:\"quantity\"`", "quantity: number", "quantity: number"},
		{"weight (number)", "Weight *float64 `json:\"weight\"`", "Weight *float64 `json:\"weight,omitempty\"`", "weight: number | null", "weight?: number | null"},
		{"amount (decimal, required)", "Amount Decimal `json:\"amount\"`", "Amount Decimal `json:\"amount\"`", "amount: Decimal", "amount: Decimal"},
		{"discount (decimal)", "Discount *Decimal `json:\"discount\"`", "Discount *Decimal `json:\"discount,omitempty\"`", "discount: Decimal | null", "discount?: Decimal | null"},
		{"isEnabled (boolean, required)", "IsEnabled bool `json:\"isEnabled\"`", "IsEnabled bool `json:\"isEnabled\"`", "isEnabled: boolean", "isEnabled: boolean"},
		{"hasFlag (boolean)", "HasFlag *bool `json:\"hasFlag\"`", "HasFlag *bool `json:\"hasFlag,omitempty\"`", "hasFlag: boolean | null", "hasFlag?: boolean | null"},
		{"startsAt (date, required)", "StartsAt time.Time `json:\"startsAt\"`", "StartsAt time.Time `json:\"startsAt\"`", "startsAt: DateTime", "startsAt: DateTime"},
		{"endsAt (date)", "EndsAt *time.Time `json:\"endsAt\"`", "EndsAt *time.Time `json:\"endsAt,omitempty\"`", "endsAt: DateTime | null", "endsAt?: DateTime | null"},
		{"settings (json, required)", "Settings json.RawMessage `json:\"settings\"`", "Settings json.RawMessage `json:\"settings\"`", "settings: unknown", "settings: unknown"},
		{"extra (json)", "Extra json.RawMessage `json:\"extra\"`", "Extra json.RawMessage `json:\"extra,omitempty\"`", "extra: unknown", "extra?: unknown"},
		{"steps (repeater, required)", "Steps []map[string]any `json:\"steps\"`", "Steps []map[string]any `json:\"steps\"`", "steps: Record<string, unknown>[]", "steps: Record<string, unknown>[]"},
		{"parts (repeater)", "Parts []map[string]any `json:\"parts\"`", "Parts []map[string]any `json:\"parts,omitempty\"`", "parts: Record<string, unknown>[] | null", "parts?: Record<string, unknown>[] | null"},
		{"labels (array, required)", "Labels []any `json:\"labels\"`", "Labels []any `json:\"labels\"`", "labels: unknown[]", "labels: unknown[]"},
		{"keywords (array)", "Keywords []any `json:\"keywords\"`", "Keywords []any `json:\"keywords,omitempty\"`", "keywords: unknown[] | null", "keywords?: unknown[] | null"},
		{"cover (image, required)", "Cover KitFile `json:\"cover\"`", "Cover KitFile `json:\"cover\"`", "cover: KitFile | string", "cover: KitFile | string"},
		{"photo (image)", "Photo *KitFile `json:\"photo\"`", "Photo *KitFile `json:\"photo,omitempty\"`", "photo: KitFile | string | null", "photo?: KitFile | string | null"},
		{"attachment (file, required)", "Attachment KitFile `json:\"attachment\"`", "Attachment KitFile `json:\"attachment\"`", "attachment: KitFile | string", "attachment: KitFile | string"},
		{"document (file)", "Document *KitFile `json:\"document\"`", "Document *KitFile `json:\"document,omitempty\"`", "document: KitFile | string | null", "document?: KitFile | string | null"},
		{"relatedSampleId (reference)", "RelatedSampleID *string `json:\"relatedSampleId\"`", "RelatedSampleID *string `json:\"relatedSampleId,omitempty\"`", "relatedSampleId: string | null", "relatedSampleId?: string | null"},
		{"id (auto-generated: not in the input)", "ID string `json:\"id\"`", "", "id: string", ""},
		{"createdAt (auto-generated: not in the input)", "CreatedAt time.Time `json:\"createdAt\"`", "", "createdAt: DateTime", ""},
	}
	goRecord, goInput := block(t, gen[typegen.LangGo], "type Sample struct {"), block(t, gen[typegen.LangGo], "type SampleInput struct {")
	tsRecord, tsInput := block(t, gen[typegen.LangTS], "export interface Sample {"), block(t, gen[typegen.LangTS], "export interface SampleInput {")
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			for _, c := range []struct {
				where string
				lines []string
				want  string
				name  string // the JSON key, to find the line when want is empty
			}{
				{"the Go record", goRecord, tt.goRecord, ""},
				{"the Go input", goInput, tt.goInput, strings.Fields(tt.field)[0]},
				{"the TypeScript record", tsRecord, tt.tsRecord, ""},
				{"the TypeScript input", tsInput, tt.tsInput, strings.Fields(tt.field)[0]},
			} {
				if c.want == "" {
					for _, l := range c.lines {
						if strings.Contains(l, `"`+c.name+`"`) || strings.HasPrefix(l, c.name+":") || strings.HasPrefix(l, c.name+"?:") {
							t.Errorf("%s: got %q, want no such field", c.where, l)
						}
					}
					continue
				}
				if !containsLine(c.lines, c.want) {
					t.Errorf("%s: got no line %q in\n%s", c.where, c.want, strings.Join(c.lines, "\n"))
				}
			}
		})
	}
}

// block returns the lines of the declaration that starts with first, up
// to its closing brace, with runs of spaces (gofmt's alignment) made one.
func block(t *testing.T, src, first string) []string {
	t.Helper()
	i := strings.Index(src, "\n"+first+"\n")
	if i < 0 {
		t.Fatalf("no %q in the output", first)
	}
	rest := src[i+len(first)+2:]
	rest = rest[:strings.Index(rest, "\n}\n")]
	var out []string
	for _, l := range strings.Split(rest, "\n") {
		l = strings.Join(strings.Fields(l), " ")
		if !strings.HasPrefix(l, "//") && !strings.HasPrefix(l, "/**") {
			out = append(out, l)
		}
	}
	return out
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}
