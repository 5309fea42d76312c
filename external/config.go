package external

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/collectionkit/kit/collections"
)

// Config is an ExternalCollectionConfig: what DefineExternalCollection
// needs to describe an external collection. Only Name is required.
type Config struct {
	// Name is the collection name, which is also its registry key and the
	// name reference fields use in refTarget ("teamUsers"). Required.
	Name string

	// Schema is the JSON Schema (draft 2020-12 unless it says otherwise)
	// every item must satisfy: any value encoding/json turns into a JSON
	// object, such as a map[string]any or a json.RawMessage. Whatever it
	// says, "id" and "title" are required strings; nil means just that.
	Schema any

	// APIPath is the endpoint path segment, served at
	// /api/teams/{team}/<APIPath>. Default Name.
	APIPath string

	// FetchStrategy is how clients fetch one item: "query" (default)
	// asks <APIPath>?ids=<id> and gets an array; "restful" asks
	// <APIPath>/<id> and gets the object. The other one answers 404.
	FetchStrategy string

	// Readonly hides edit and delete in item cards. nil means true.
	Readonly *bool

	// Meta is the display label and description. The label is also the
	// collection's displayName.
	Meta Meta

	// Proxy, when enabled, makes the collection serve another endpoint of
	// the same team, /api/teams/{team}/<Proxy.SourceEndpoint>, through kit
	// and as the same caller, with Proxy.Transform applied to every item.
	// The transform should keep the source item's id: ?ids= and /{id} are
	// answered by asking the source for those ids.
	Proxy *collections.Proxy

	// Handler serves the items of a collection that is not proxied,
	// usually one built with [CreateExternalCollectionHandler]. [Register]
	// mounts it at GET /api/teams/{team}/<APIPath> (and /<APIPath>/{id}),
	// behind team membership. Leave it nil to mount a handler yourself,
	// for example at /api/admin/<name>.
	Handler http.Handler
}

// Meta is the display metadata of an external collection.
type Meta struct {
	// Label is the human-readable name.
	Label string `json:"label,omitempty"`
	// Description says what the items are.
	Description string `json:"description,omitempty"`
}

// Collection is a defined external collection: its validated config and
// its compiled item schema. Register it with [Register] (or pass
// [Collection.Definition] to kit.New or (*kit.Kit).Register). It is
// immutable and safe for concurrent use.
type Collection struct {
	cfg        Config
	apiPath    string
	strategy   string
	readonly   bool
	schemaJSON []byte
	schema     *jsonschema.Schema
}

// DefineExternalCollection validates cfg and returns the collection it
// defines: layer "external", no form component, empty default values and
// columns, apiPath defaulting to the name, fetchStrategy to "query" and
// readonly to true. A config that cannot work (no name, an unknown fetch
// strategy, a proxy without a source endpoint or proxying itself, a proxy
// with a Handler, a schema that does not compile or that makes id or title
// anything but a string) is an error naming the collection.
func DefineExternalCollection(cfg Config) (*Collection, error) {
	if cfg.Name == "" {
		return nil, errors.New("external: DefineExternalCollection needs a Name")
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("external: collection %q: %s", cfg.Name, fmt.Sprintf(format, args...))
	}
	c := &Collection{cfg: cfg, apiPath: cfg.APIPath, strategy: cfg.FetchStrategy, readonly: cfg.Readonly == nil || *cfg.Readonly}
	if c.apiPath == "" {
		c.apiPath = cfg.Name
	}
	if c.strategy == "" {
		c.strategy = "query"
	}
	if c.strategy != "query" && c.strategy != "restful" {
		return nil, fail("fetchStrategy %q must be query or restful", c.strategy)
	}
	if cfg.Proxy != nil {
		p := *cfg.Proxy
		c.cfg.Proxy = &p
		if p.Enabled {
			switch {
			case p.SourceEndpoint == "":
				return nil, fail("proxy.enabled needs proxy.sourceEndpoint")
			case !validEndpoint(p.SourceEndpoint):
				return nil, fail("proxy.sourceEndpoint %q must be path segments of letters, digits, '-' and '_'", p.SourceEndpoint)
			case p.SourceEndpoint == c.apiPath:
				return nil, fail("proxy.sourceEndpoint %q is the collection's own apiPath: it would proxy itself", p.SourceEndpoint)
			case cfg.Handler != nil:
				return nil, fail("a proxied collection is served by its proxy: leave Handler nil")
			}
		}
	}
	doc, err := itemSchema(cfg.Schema)
	if err != nil {
		return nil, fail("schema: %v", err)
	}
	if c.schemaJSON, err = json.Marshal(doc); err != nil {
		return nil, fail("schema: %v", err)
	}
	if c.schema, err = compileItemSchema(cfg.Name, c.schemaJSON); err != nil {
		return nil, fail("schema: %v", err)
	}
	return c, nil
}

// Name returns the collection name, which is its registry key.
func (c *Collection) Name() string { return c.cfg.Name }

// APIPath returns the endpoint path segment (default the name).
func (c *Collection) APIPath() string { return c.apiPath }

// Config returns the collection's CollectionConfig as kit registers it
// under kitCollections: name, layer "external", apiPath, fetchStrategy,
// displayName (the meta label), proxy, and in Extra componentName (null),
// defaultValues ({}), columns ([]), readonly, schema (with id and title
// required) and meta. Each call returns a fresh copy.
func (c *Collection) Config() collections.Config {
	var schema map[string]any
	_ = json.Unmarshal(c.schemaJSON, &schema) // it came from json.Marshal
	cfg := collections.Config{
		Name:          c.cfg.Name,
		Layer:         collections.ExternalLayer,
		APIPath:       c.apiPath,
		FetchStrategy: c.strategy,
		DisplayName:   c.cfg.Meta.Label,
		Extra: map[string]any{
			// ComponentName "" is left out of the JSON; the spec writes
			// null, which an Extra key with the same name gives.
			"componentName": nil,
			"defaultValues": map[string]any{},
			"columns":       []any{},
			"readonly":      c.readonly,
			"schema":        schema,
			"meta":          c.cfg.Meta,
		},
	}
	if c.cfg.Proxy != nil {
		p := *c.cfg.Proxy
		cfg.Proxy = &p
	}
	return cfg
}

// Definition returns the collection as a kit definition (External, no
// fields, Config as above), for kit.Config.Definitions or
// (*kit.Kit).Register. Reference fields of stored collections may then
// name it in refTarget. [Register] does this and mounts the endpoints.
func (c *Collection) Definition() collections.Definition {
	cfg := c.Config()
	return collections.Definition{Name: c.cfg.Name, External: true, Config: &cfg}
}

// ValidateItem reports why item is not an item of the collection: "id"
// must be a non-empty string, "title" a string, and the item (as JSON)
// must satisfy the collection's schema. It returns nil for a valid item.
func (c *Collection) ValidateItem(item Item) error {
	if err := checkItem(item); err != nil {
		return err
	}
	b, err := json.Marshal(item)
	if err != nil {
		return fmt.Errorf("the item cannot be encoded as JSON: %w", err)
	}
	return c.validateJSON(b)
}

// validateJSON checks an encoded item against the schema.
func (c *Collection) validateJSON(b []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := c.schema.Validate(v); err != nil {
		return fmt.Errorf("the item does not satisfy the schema of %q: %w", c.cfg.Name, err)
	}
	return nil
}

// itemSchema turns the configured schema into a JSON object that also
// requires "id" and "title" as strings.
func itemSchema(schema any) (map[string]any, error) {
	doc := map[string]any{}
	if schema != nil {
		b, err := json.Marshal(schema)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("must be a JSON object, not %s", b)
		}
		doc = obj
	}
	if _, ok := doc["$schema"]; !ok {
		doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	}
	switch t := doc["type"]; t {
	case nil:
		doc["type"] = "object"
	case "object":
	default:
		return nil, fmt.Errorf(`type must be "object" (items are objects), not %v`, t)
	}
	props := map[string]any{}
	if p, ok := doc["properties"]; ok {
		if props, ok = p.(map[string]any); !ok {
			return nil, errors.New("properties must be an object")
		}
	}
	for _, key := range []string{"id", "title"} {
		p, ok := props[key]
		if !ok {
			props[key] = map[string]any{"type": "string"}
			continue
		}
		ps, ok := p.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("properties.%s must be an object", key)
		}
		if t, ok := ps["type"]; ok && t != "string" {
			return nil, fmt.Errorf(`properties.%s must have type "string", not %v`, key, t)
		}
	}
	doc["properties"] = props
	required := []any{"id", "title"}
	if r, ok := doc["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			return nil, errors.New("required must be an array of property names")
		}
		for _, name := range list {
			if !slices.Contains(required, name) {
				required = append(required, name)
			}
		}
	}
	doc["required"] = required
	return doc, nil
}

func compileItemSchema(name string, doc []byte) (*jsonschema.Schema, error) {
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	url := "kit:///external/" + name + ".json"
	if err := comp.AddResource(url, parsed); err != nil {
		return nil, err
	}
	return comp.Compile(url)
}

// validEndpoint accepts one or more path segments of letters, digits, '-'
// and '_' ("shop-products", "reports/weekly").
func validEndpoint(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || len(seg) > 128 {
			return false
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}
