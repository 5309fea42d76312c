package typegen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/collectionkit/kit/collections"
)

// generateTS writes m as a TypeScript module; vue adds the typed
// composables of @collectionkit/vue.
func generateTS(m *model, vue bool) ([]byte, error) {
	lang := LangTS
	if vue {
		lang = LangVue
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("%s", header(lang, m))
	names := []string{"Decimal", "DateTime", "Pagination", "FilterOp", "Conditions", "SortKey",
		"collections", "CollectionKey", "CollectionTypes"}
	if vue && len(m.collections) > 0 {
		w("\nimport { useCollectionItem, useCollectionMutation, useCollectionQuery } from '@collectionkit/vue'\n")
		w("import type {\n  UseCollectionItemReturn,\n  UseCollectionMutationReturn,\n  UseCollectionQueryOptions,\n  UseCollectionQueryReturn,\n} from '@collectionkit/vue'\n")
		w("import type { MaybeRefOrGetter } from 'vue'\n")
		names = append(names, "useCollectionItem", "useCollectionMutation", "useCollectionQuery", "UseCollectionItemReturn",
			"UseCollectionMutationReturn", "UseCollectionQueryOptions", "UseCollectionQueryReturn", "MaybeRefOrGetter",
			"CollectionMutation")
	}
	w("%s", tsShared)
	names = append(names, tsFilterShared(w)...)
	for _, c := range m.collections {
		t := c.typeName
		names = append(names, t, t+"Input", t+"Filter", t+"SortField", t+"Query", t+"Response")
		tsRecord(w, c)
		tsInput(w, c)
		tsQuery(w, c)
	}

	w("\n/**\n * The collections by registry key: what a client needs to address each\n")
	w(" * one (its endpoint is `/api/teams/{team}/<apiPath>`).\n */\nexport const collections = {\n")
	for _, c := range m.collections {
		w("  %s: {\n    key: %s,\n    apiPath: %s,\n    fetchStrategy: %s,\n", c.key, tsString(c.key), tsString(c.apiPath), tsString(c.fetchStrategy))
		w("    references: {")
		refs := make([]string, 0, len(c.references))
		for _, f := range sortedKeys(c.references) {
			refs = append(refs, fmt.Sprintf("%s: %s", f, tsString(c.references[f])))
		}
		if len(refs) > 0 {
			w(" %s ", strings.Join(refs, ", "))
		}
		w("},\n  },\n")
	}
	w("} as const\n\n/** A collection's registry key. */\nexport type CollectionKey = keyof typeof collections\n")
	w("\n/** The generated types of each collection, by registry key. */\nexport interface CollectionTypes {\n")
	for _, c := range m.collections {
		t := c.typeName
		w("  %s: { record: %s; input: %sInput; query: %sQuery; response: %sResponse }\n", c.key, t, t, t, t)
	}
	w("}\n")

	if vue && len(m.collections) > 0 {
		w("%s", tsVueShared)
		for _, c := range m.collections {
			tsComposables(w, c)
			names = append(names, c.composable, c.composable+"Item", c.composable+"Mutation")
		}
	}
	if err := checkNames(lang, names); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

const tsShared = `
/**
 * A decimal value as kit sends it: a string in canonical form ("19.90" at
 * scale 2), exact where a number would round.
 */
export type Decimal = string

/**
 * A date and time as kit sends it: RFC 3339 in UTC with microseconds
 * ("2026-11-23T16:48:47.145094Z"). An input may also be "YYYY-MM-DD".
 */
export type DateTime = string

/**
 * A file of an image or file field as kit answers it: its name, size,
 * content type (sniffed from the bytes), download URL (signed for a
 * while) and, for images, size in pixels. Files are uploaded as
 * multipart/form-data; in a JSON body a file field keeps the record's
 * files named in it (see docs/files.md). A field may hold a URL string
 * instead: a file kept elsewhere.
 */
export interface KitFile {
  name: string
  size: number
  contentType: string
  url: string
  width?: number
  height?: number
}

/** The pagination data of every list. */
export interface Pagination {
  currentPage: number
  pageSize: number
  totalItems: number
  totalPages?: number
  sortBy?: string
  sortDirection?: 'asc' | 'desc'
}

/** An operator of kit's filter JSON. */
export type FilterOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin' | 'contains' | 'startsWith' | 'isNull'

/** The operators O on a field whose values are V: in and nin take arrays, isNull a boolean. */
export type Conditions<V, O extends FilterOp> = {
  [K in O]?: K extends 'in' | 'nin' ? V[] : K extends 'isNull' ? boolean : V
}

/** A sort key: a field name, ascending, or "-" and the name, descending. */
export type SortKey<F extends string> = F | ` + "`-${F}`" + `
`

const tsVueShared = `
/**
 * CollectionMutation is what useCollectionMutation returns, with create
 * and update typed by the collection's record and input types.
 */
export interface CollectionMutation<T extends { id: string }, I>
  extends Omit<UseCollectionMutationReturn<T>, 'create' | 'update'> {
  /** Creates a record; resolves with it as stored. */
  create: (data: I) => Promise<T>
  /** Updates the given fields; resolves with the stored record. */
  update: (id: string, data: Partial<I>, options?: Parameters<UseCollectionMutationReturn<T>['update']>[2]) => Promise<T>
}
`

// tsRecord writes the record interface: every attribute, always present.
func tsRecord(w func(string, ...any), c collection) {
	w("\n/** %s is a record of %s (`GET /api/teams/{team}/%s`). */\n", c.typeName, c.key, c.apiPath)
	w("export interface %s {\n", c.typeName)
	for _, f := range c.fields {
		tsDoc(w, f.doc)
		w("  %s: %s\n", f.name, tsType(f, f.nullable))
	}
	w("}\n")
}

// tsInput writes the input interface: the writable fields, the required
// ones required.
func tsInput(w func(string, ...any), c collection) {
	w("\n/**\n * %sInput is the body that creates a record of %s (POST): the\n", c.typeName, c.key)
	w(" * writable fields, the required ones required. A Partial<%sInput>\n * updates one (PATCH).\n */\n", c.typeName)
	w("export interface %sInput {\n", c.typeName)
	for _, f := range c.inputFields() {
		tsDoc(w, f.doc)
		if f.input == inputRequired {
			w("  %s: %s\n", f.name, tsType(f, false))
			continue
		}
		w("  %s?: %s\n", f.name, tsType(f, true))
	}
	w("}\n")
}

// tsQuery writes the filter, sort field, query and response types.
func tsQuery(w func(string, ...any), c collection) {
	t := c.typeName
	w("\n/**\n * %sFilter is kit's filter JSON for %s: a field to a value\n", t, c.key)
	w(" * (equality; null matches a missing value) or to operators.\n */\n")
	w("export interface %sFilter {\n", t)
	for _, f := range c.fields {
		w("  %s?: %s\n", f.name, tsFilterType(f))
	}
	w("}\n")
	w("\n/** The fields %s lists can sort by. */\n", c.key)
	sorts := c.sortFields()
	q := make([]string, len(sorts))
	for i, s := range sorts {
		q[i] = tsString(s)
	}
	w("export type %sSortField =\n  | %s\n", t, strings.Join(q, "\n  | "))
	w("\n/**\n * %sQuery is a list request for %s: the query parameters of\n", t, c.key)
	w(" * `GET /api/teams/{team}/%s`.\n */\n", c.apiPath)
	w("export interface %sQuery {\n", t)
	w("  /** 1-based. */\n  page?: number\n  /** 1..100; the collection's default when left out. */\n  pageSize?: number\n")
	w("  /** The same as pageSize. */\n  limit?: number\n")
	w("  /** A case-insensitive substring of a string or text field. */\n  search?: string\n")
	w("  /** Up to 4 keys. */\n  sort?: SortKey<%sSortField> | SortKey<%sSortField>[]\n", t, t)
	w("  sortBy?: %sSortField\n  sortDirection?: 'asc' | 'desc'\n  filter?: %sFilter\n", t, t)
	w("  /** These records only: the answer is then %s[] in the order asked. */\n  ids?: string[]\n}\n", t)
	w("\n/** %sResponse is a page of %s. */\n", t, c.key)
	w("export interface %sResponse {\n  items: %s[]\n  pagination: Pagination\n}\n", t, t)
}

// tsComposables writes the typed composables of one collection.
func tsComposables(w func(string, ...any), c collection) {
	t, u, key := c.typeName, c.composable, "collections."+c.key+".key"
	w("\n/** %s lists %s of the current team: useCollectionQuery typed by %s and %sQuery. */\n", u, c.key, t, t)
	w("export function %s(options?: UseCollectionQueryOptions<%sQuery>): UseCollectionQueryReturn<%s> {\n", u, t, t)
	w("  return useCollectionQuery<%s, %sQuery>(%s, options)\n}\n", t, t, key)
	w("\n/** %sItem reads one %s record by id (a string, ref or getter): useCollectionItem typed by %s. */\n", u, c.key, t)
	w("export function %sItem(id: MaybeRefOrGetter<string | null | undefined>): UseCollectionItemReturn<%s> {\n", u, t)
	w("  return useCollectionItem<%s>(%s, id)\n}\n", t, key)
	w("\n/** %sMutation writes %s: create takes a %sInput, update a Partial<%sInput>. */\n", u, c.key, t, t)
	w("export function %sMutation(): CollectionMutation<%s, %sInput> {\n", u, t, t)
	w("  return useCollectionMutation<%s>(%s)\n}\n", t, key)
}

func tsDoc(w func(string, ...any), doc string) {
	if doc != "" {
		w("  /** %s */\n", strings.ReplaceAll(doc, "*/", "* /"))
	}
}

// tsType is the TypeScript type of f's values; nullable adds null.
func tsType(f field, nullable bool) string {
	t := tsValueType(f.kind)
	if f.kind == kindJSON {
		return t
	}
	if nullable {
		return t + " | null"
	}
	return t
}

func tsValueType(k kind) string {
	switch k {
	case kindNumber, kindInteger, kindWhole:
		return "number"
	case kindDecimal:
		return "Decimal"
	case kindBoolean:
		return "boolean"
	case kindDate:
		return "DateTime"
	case kindJSON:
		return "unknown"
	case kindRepeater:
		return "Record<string, unknown>[]"
	case kindArray:
		return "unknown[]"
	case kindFile:
		return "KitFile | string"
	case kindFiles:
		return "KitFile[] | string"
	}
	return "string"
}

// tsFilters are the shared filter types: what a filter may say about a
// field of each kind, with the operators of a field type of that kind.
var tsFilters = []struct {
	name  string
	kinds []kind
	typ   collections.FieldType
}{
	{"FilterText", []kind{kindString, kindFile, kindFiles}, collections.TypeString},
	{"FilterNumber", []kind{kindNumber, kindInteger, kindWhole}, collections.TypeNumber},
	{"FilterDecimal", []kind{kindDecimal}, collections.TypeDecimal},
	{"FilterDate", []kind{kindDate}, collections.TypeDate},
	{"FilterBoolean", []kind{kindBoolean}, collections.TypeBoolean},
	{"FilterNull", []kind{kindJSON, kindRepeater, kindArray}, collections.TypeJSON},
}

// tsFilterShared declares the shared filter types.
func tsFilterShared(w func(string, ...any)) []string {
	var names []string
	for _, f := range tsFilters {
		what := fmt.Sprintf("a %s field", f.typ)
		if f.name == "FilterNull" {
			what = "a json, repeater or array field: only whether it is null"
		}
		w("\n/** What a filter may say about %s. */\n", what)
		w("export type %s = %s\n", f.name, tsFilterExpr(f.kinds[0], f.typ.FilterOps()))
		names = append(names, f.name)
	}
	return names
}

// tsFilterType is what a filter may say about f: a bare value where
// equality applies, null, or the operators f's type accepts; the shared
// type of f's kind when the operators are the same.
func tsFilterType(f field) string {
	for _, s := range tsFilters {
		if slices.Contains(s.kinds, f.kind) && slices.Equal(s.typ.FilterOps(), f.ops) {
			return s.name
		}
	}
	return tsFilterExpr(f.kind, f.ops)
}

func tsFilterExpr(k kind, ops []collections.Op) string {
	v := tsValueType(k)
	if k == kindDecimal {
		v = "Decimal | number" // the server compares numbers too
	}
	q := make([]string, len(ops))
	for i, o := range ops {
		q[i] = tsString(string(o))
	}
	if !slices.Contains(ops, collections.OpEq) {
		return "null | Conditions<never, " + strings.Join(q, " | ") + ">"
	}
	return fmt.Sprintf("%s | null | Conditions<%s, %s>", v, v, strings.Join(q, " | "))
}

// tsString is s as a single-quoted TypeScript string literal.
func tsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`)
	return "'" + r.Replace(s) + "'"
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
