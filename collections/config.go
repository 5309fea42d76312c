package collections

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Config is a collection's CollectionConfig: everything a client needs to
// render and fetch it, registered under kitCollections keyed by the
// collection's registry key. Keys that kit does not know are kept in Extra
// and written back next to the known ones.
type Config struct {
	Name                     string            `json:"name"`
	Layer                    string            `json:"layer"`
	ComponentName            string            `json:"componentName,omitempty"`
	Kind                     string            `json:"kind,omitempty"`
	Container                string            `json:"container,omitempty"`
	APIPath                  string            `json:"apiPath,omitempty"`
	DisplayName              string            `json:"displayName,omitempty"`
	DefaultPagination        *Pagination       `json:"defaultPagination,omitempty"`
	References               map[string]string `json:"references,omitempty"`
	DependentFieldComponents map[string]string `json:"dependentFieldComponents,omitempty"`
	Hierarchy                *Hierarchy        `json:"hierarchy,omitempty"`
	Sortable                 *Sortable         `json:"sortable,omitempty"`
	AdminNav                 *AdminNav         `json:"adminNav,omitempty"`
	Display                  map[string]string `json:"display,omitempty"`
	Fields                   []FieldInfo       `json:"fields,omitempty"`
	Publishable              bool              `json:"publishable,omitempty"`
	FetchStrategy            string            `json:"fetchStrategy,omitempty"`
	Proxy                    *Proxy            `json:"proxy,omitempty"`
	// UseMetadata adds createdAt, updatedAt, createdBy and updatedBy to
	// every record; nil means true.
	UseMetadata *bool `json:"useMetadata,omitempty"`
	// SoftDelete makes a delete move the record to its team's trash
	// instead of removing it for good: the record leaves the collection
	// (lists, gets, references and counts no longer see it) and can be
	// restored with the same id, or purged; kit purges it after the trash
	// retention (kit.Config.Trash).
	SoftDelete bool `json:"softDelete,omitempty"`
	// RenamedFrom is the collection's former registry key: schema sync
	// renames the table kit stored under that key (its rows, indexes,
	// search index and row counts) to this collection's, and ignores it
	// once this collection is stored. Keep it as long as a database synced
	// before the rename may meet it.
	RenamedFrom string `json:"renamedFrom,omitempty"`
	// Extra holds custom keys, kept as they were given.
	Extra map[string]any `json:"-"`
}

// Pagination is the default paging of a collection's lists.
type Pagination struct {
	CurrentPage   int    `json:"currentPage,omitempty"`
	PageSize      int    `json:"pageSize,omitempty"`
	SortBy        string `json:"sortBy,omitempty"`
	SortDirection string `json:"sortDirection,omitempty"`
}

// Hierarchy turns a collection into a tree. Enabled, it adds four
// attributes that kit keeps (see [Managed]): the parent's id, the
// materialized path, the depth and the order among siblings, named by the
// *Field properties (defaults parentId, path, depth, order). A schema must
// not define them.
type Hierarchy struct {
	Enabled     bool   `json:"enabled"`
	ParentField string `json:"parentField,omitempty"`
	PathField   string `json:"pathField,omitempty"`
	DepthField  string `json:"depthField,omitempty"`
	OrderField  string `json:"orderField,omitempty"`
	// MoveRole is the least team role ("member", "admin" or "owner") that
	// may move and reorder any record of the tree. Empty: the update rule
	// (members their own records, admins and owners any).
	MoveRole string `json:"moveRole,omitempty"`
}

// Sortable gives a flat collection a manual order: an order attribute
// (default "order") that kit keeps contiguous (0..n-1) within a team.
type Sortable struct {
	Enabled    bool   `json:"enabled"`
	OrderField string `json:"orderField,omitempty"`
	// ReorderRole is the least team role ("member", "admin" or "owner")
	// that may reorder any record. Empty: the update rule (a member may
	// reorder only when every record whose position changes is theirs).
	ReorderRole string `json:"reorderRole,omitempty"`
}

// AdminNav is the collection's entry in an admin sidebar.
type AdminNav struct {
	Enabled *bool  `json:"enabled,omitempty"`
	Icon    string `json:"icon,omitempty"`
	Label   string `json:"label,omitempty"`
	Order   *int   `json:"order,omitempty"`
}

// FieldInfo is the runtime metadata of one field that clients read.
type FieldInfo struct {
	Name      string    `json:"name"`
	Type      FieldType `json:"type"`
	Label     string    `json:"label,omitempty"`
	Area      string    `json:"area,omitempty"`
	DisplayAs string    `json:"displayAs,omitempty"`
}

// Proxy makes a collection serve another endpoint of the same team.
// Transform is Go code and is not serialized.
type Proxy struct {
	Enabled        bool   `json:"enabled"`
	SourceEndpoint string `json:"sourceEndpoint,omitempty"`
	// Transform maps one source item to the collection's shape
	// ({id, title, ...}).
	Transform func(item map[string]any) (map[string]any, error) `json:"-"`
}

// The allowed values of the enumerated Config properties.
var (
	containers      = []string{"slideover", "modal", "dialog", "inline"}
	kinds           = []string{"data", "content", "media"}
	fetchStrategies = []string{"query", "restful"}
	displayRoles    = []string{"title", "subtitle", "image", "badge", "description"}
)

// knownConfigKeys are the JSON names of Config's own properties.
func knownConfigKeys() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeOf(Config{})
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
}

type configAlias Config

// MarshalJSON writes the known properties and the custom keys in one object.
func (c Config) MarshalJSON() ([]byte, error) {
	known, err := json.Marshal(configAlias(c))
	if err != nil {
		return nil, err
	}
	if len(c.Extra) == 0 {
		return known, nil
	}
	var merged map[string]any
	if err := json.Unmarshal(known, &merged); err != nil {
		return nil, err
	}
	for k, v := range c.Extra {
		if _, taken := merged[k]; !taken {
			merged[k] = v
		}
	}
	return json.Marshal(merged)
}

// UnmarshalJSON reads the known properties and keeps every other key in
// Extra. Keys match exactly, as in JavaScript: "ApiPath" is a custom key,
// not apiPath.
func (c *Config) UnmarshalJSON(data []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	// encoding/json matches struct fields case-insensitively, so decode
	// only the exactly named known keys into the struct.
	known := knownConfigKeys()
	exact := make(map[string]json.RawMessage, len(all))
	for k, raw := range all {
		if known[k] {
			exact[k] = raw
		}
	}
	var a configAlias
	b, err := json.Marshal(exact)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	for k, raw := range all {
		if known[k] {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		if a.Extra == nil {
			a.Extra = map[string]any{}
		}
		a.Extra[k] = v
	}
	*c = Config(a)
	return nil
}

// clone returns a copy of c that shares no map, slice or pointer with it
// (Proxy.Transform, a function, is shared).
func (c Config) clone() Config {
	c.DefaultPagination = clonePtr(c.DefaultPagination)
	c.References = maps.Clone(c.References)
	c.DependentFieldComponents = maps.Clone(c.DependentFieldComponents)
	c.Hierarchy = clonePtr(c.Hierarchy)
	c.Sortable = clonePtr(c.Sortable)
	if c.AdminNav != nil {
		nav := *c.AdminNav
		nav.Enabled = clonePtr(nav.Enabled)
		nav.Order = clonePtr(nav.Order)
		c.AdminNav = &nav
	}
	c.Display = maps.Clone(c.Display)
	c.Fields = slices.Clone(c.Fields)
	c.Proxy = clonePtr(c.Proxy)
	c.UseMetadata = clonePtr(c.UseMetadata)
	if c.Extra != nil {
		c.Extra = cloneValue(c.Extra).(map[string]any)
	}
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// merge copies every non-zero property of o over c.
func (c *Config) merge(o Config) {
	dst := reflect.ValueOf(c).Elem()
	src := reflect.ValueOf(o)
	for i := 0; i < src.NumField(); i++ {
		if f := src.Field(i); !f.IsZero() {
			if src.Type().Field(i).Name == "Extra" {
				if c.Extra == nil {
					c.Extra = map[string]any{}
				}
				for k, v := range o.Extra {
					c.Extra[k] = v
				}
				continue
			}
			dst.Field(i).Set(f)
		}
	}
}

// validate checks the enumerated properties and the field names the
// config points at.
func (c *Config) validate(col *Collection) []string {
	var msgs []string
	oneOf := func(prop, v string, allowed []string) {
		if v == "" {
			return
		}
		for _, a := range allowed {
			if v == a {
				return
			}
		}
		msgs = append(msgs, fmt.Sprintf("%s %q must be one of %s", prop, v, strings.Join(allowed, ", ")))
	}
	oneOf("container", c.Container, containers)
	oneOf("kind", c.Kind, kinds)
	oneOf("fetchStrategy", c.FetchStrategy, fetchStrategies)
	for _, role := range sortedKeys(c.Display) { // sorted: findings come in a stable order
		field := c.Display[role]
		oneOf("display role", role, displayRoles)
		if _, ok := col.Attribute(field); !ok {
			msgs = append(msgs, fmt.Sprintf("display.%s names unknown field %q", role, field))
		}
	}
	if p := c.DefaultPagination; p != nil {
		if p.CurrentPage < 0 || p.PageSize < 0 {
			msgs = append(msgs, "defaultPagination.currentPage and pageSize must be positive")
		}
		oneOf("defaultPagination.sortDirection", p.SortDirection, []string{"asc", "desc"})
		if p.SortBy != "" {
			if a, ok := col.Attribute(p.SortBy); !ok || !a.Sortable() {
				msgs = append(msgs, fmt.Sprintf("defaultPagination.sortBy %q is not a sortable field", p.SortBy))
			}
		}
	}
	if c.APIPath != "" && !validAPIPath(c.APIPath) {
		msgs = append(msgs, fmt.Sprintf("apiPath %q must be one URL path segment of letters, digits, '-' and '_'", c.APIPath))
	}
	if c.Proxy != nil && c.Proxy.Enabled && c.Proxy.SourceEndpoint == "" {
		msgs = append(msgs, "proxy.enabled needs proxy.sourceEndpoint")
	}
	return msgs
}

func validAPIPath(p string) bool {
	if p == "" || len(p) > 128 {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
