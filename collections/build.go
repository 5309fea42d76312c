package collections

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

func build(defs []Definition, settings map[string]json.RawMessage, opts LoadOptions, findings []Finding) (*Registry, []Finding, error) {
	reg := &Registry{byKey: map[string]*Collection{}}
	byName := map[string][]*Collection{}
	tables := map[string]*Collection{}
	for _, def := range defs {
		c, ff := compileDefinition(def, opts)
		findings = append(findings, ff...)
		if c == nil {
			continue
		}
		if prev, dup := reg.byKey[c.key]; dup {
			findings = append(findings, Finding{File: def.File, Collection: c.name, Severity: SeverityError,
				Message: fmt.Sprintf("collection %q is defined twice (also in %s)", c.key, orGo(prev.file))})
			continue
		}
		if prev, dup := tables[c.table]; dup && !c.external {
			findings = append(findings, Finding{File: def.File, Collection: c.name, Severity: SeverityError,
				Message: fmt.Sprintf("table name %q collides with collection %q", c.table, prev.key)})
			continue
		}
		tables[c.table] = c
		reg.byKey[c.key] = c
		reg.order = append(reg.order, c)
		byName[c.name] = append(byName[c.name], c)
	}

	// Settings from kit.config.json, keyed by collection name or key.
	lookup := func(k string) (*Collection, string) {
		if c, ok := reg.byKey[k]; ok {
			return c, ""
		}
		switch cs := byName[k]; len(cs) {
		case 0:
			return nil, fmt.Sprintf("names no collection %q", k)
		case 1:
			return cs[0], ""
		default:
			return nil, fmt.Sprintf("%q is ambiguous: use the registry key (%s)", k, keysOf(cs))
		}
	}
	fileSettings := map[*Collection]Config{}
	for _, k := range sortedKeys(settings) {
		c, msg := lookup(k)
		if c == nil {
			findings = append(findings, Finding{File: ConfigFileName, Collection: k, Severity: SeverityError, Message: "kit.config.json " + msg})
			continue
		}
		var cfg Config
		if err := json.Unmarshal(settings[k], &cfg); err != nil {
			findings = append(findings, Finding{File: ConfigFileName, Collection: k, Severity: SeverityError, Message: "invalid settings: " + err.Error()})
			continue
		}
		fileSettings[c] = cfg
	}
	goSettings := map[*Collection]Config{}
	for _, k := range sortedKeys(opts.Overrides) {
		c, msg := lookup(k)
		if c == nil {
			findings = append(findings, Finding{Collection: k, Severity: SeverityError, Message: "override " + msg})
			continue
		}
		goSettings[c] = opts.Overrides[k]
	}

	for _, c := range reg.order {
		findings = append(findings, resolveRefs(c, reg, byName)...)
		c.config = defaultConfig(c)
		if cfg, ok := fileSettings[c]; ok {
			c.config.mergeSettings(cfg)
		}
		for _, def := range defs {
			if def.Config != nil && definitionKey(def, opts) == c.key {
				c.config.mergeSettings(*def.Config)
			}
		}
		if cfg, ok := goSettings[c]; ok {
			c.config.mergeSettings(cfg)
		}
		c.config.fillDerived(c)
		findings = append(findings, checkManaged(c)...)
		c.index()
		findings = append(findings, checkFieldRenames(c)...)
		for _, msg := range c.config.validate(c) {
			findings = append(findings, Finding{File: c.file, Collection: c.name, Severity: SeverityError, Message: msg})
		}
		if err := c.compileValidator(); err != nil {
			findings = append(findings, Finding{File: c.file, Collection: c.name, Severity: SeverityError, Message: "cannot compile JSON Schema: " + err.Error()})
		}
	}

	findings = append(findings, checkCollectionRenames(reg)...)

	// Two collections at one apiPath would shadow each other's endpoints.
	paths := map[string]*Collection{}
	for _, c := range reg.order {
		if prev, dup := paths[c.config.APIPath]; dup && c.config.APIPath != "" {
			findings = append(findings, Finding{File: c.file, Collection: c.name, Severity: SeverityError,
				Message: fmt.Sprintf("apiPath %q is also the apiPath of collection %q", c.config.APIPath, prev.key)})
			continue
		}
		paths[c.config.APIPath] = c
	}

	var errs, warnings []Finding
	for _, f := range findings {
		if f.Severity == SeverityError {
			errs = append(errs, f)
		} else {
			warnings = append(warnings, f)
		}
	}
	if len(errs) > 0 {
		return nil, warnings, &LoadError{Findings: errs}
	}
	return reg, warnings, nil
}

func definitionKey(def Definition, opts LoadOptions) string {
	if def.External {
		return def.Name
	}
	return RegistryKey(layerOr(def.Layer, opts), def.Name)
}

func orGo(file string) string {
	if file == "" {
		return "a Go definition"
	}
	return file
}

func keysOf(cs []*Collection) string {
	keys := make([]string, len(cs))
	for i, c := range cs {
		keys[i] = c.key
	}
	return strings.Join(keys, ", ")
}

func layerOr(layer string, opts LoadOptions) string {
	if layer == "" {
		return opts.defaultLayer()
	}
	return layer
}

// compileDefinition checks one definition on its own: names, types,
// decimal settings, defaults. References are resolved later.
func compileDefinition(def Definition, opts LoadOptions) (*Collection, []Finding) {
	if def.External {
		return compileExternal(def)
	}
	layer := layerOr(def.Layer, opts)
	var findings []Finding
	add := func(field string, sev Severity, format string, args ...any) {
		findings = append(findings, Finding{File: def.File, Collection: def.Name, Field: field, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	for _, f := range checkCollectionName(def.Name) {
		f.File, f.Collection = def.File, def.Name
		findings = append(findings, f)
	}
	// Sub-directory layers were checked once per folder; the default layer
	// of Go definitions and of root-level files was not.
	if def.File == "" || path.Dir(def.File) == "." {
		for _, f := range checkLayerName(layer) {
			f.File, f.Collection = def.File, def.Name
			findings = append(findings, f)
		}
	}
	if strings.EqualFold(layer, "kit") {
		add("", SeverityError, "layer %q is reserved for kit's own tables", layer)
	}
	c := &Collection{
		key:   RegistryKey(layer, def.Name),
		name:  def.Name,
		layer: layer,
		file:  def.File,
		table: ColumnName(layer) + "_" + ColumnName(def.Name),
	}
	seen := map[string]bool{}
	columns := map[string]string{}
	for _, sf := range systemFields {
		columns[ColumnName(sf.Name)] = sf.Name
	}
	for _, f := range def.Fields {
		if seen[f.Name] {
			add(f.Name, SeverityError, "duplicate key %q: the field is defined twice", f.Name)
			continue
		}
		seen[f.Name] = true
		if IsSystemField(f.Name) {
			add(f.Name, SeverityError, "duplicate key %q: %s is an auto-generated field; remove it from the schema", f.Name, f.Name)
			continue
		}
		ff := checkField(&f)
		for i := range ff {
			ff[i].File, ff[i].Collection = def.File, def.Name
		}
		findings = append(findings, ff...)
		col := ColumnName(f.Name)
		if other, ok := columns[col]; ok && validIdentifier(f.Name) {
			add(f.Name, SeverityError, "column name %q collides with field %q", col, other)
			continue
		}
		columns[col] = f.Name
		f.Meta.Default = cloneValue(f.Meta.Default) // share nothing with def
		c.fields = append(c.fields, f)
	}
	return c, findings
}

// compileExternal checks an external collection: a valid name and no
// fields of its own (its items are whatever its handler returns).
func compileExternal(def Definition) (*Collection, []Finding) {
	var findings []Finding
	if !validIdentifier(def.Name) {
		findings = append(findings, Finding{File: def.File, Collection: def.Name, Severity: SeverityError,
			Message: fmt.Sprintf("external collection name %q must be a camelCase identifier", def.Name)})
	}
	if len(def.Fields) > 0 {
		findings = append(findings, Finding{File: def.File, Collection: def.Name, Severity: SeverityError,
			Message: "an external collection has no fields of its own; describe its items in Config.Extra[\"schema\"]"})
	}
	return &Collection{key: def.Name, name: def.Name, layer: ExternalLayer, file: def.File, external: true}, findings
}

func validIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// checkField checks a field's name, type, decimal settings, flags and
// default.
func checkField(f *Field) []Finding {
	var findings []Finding
	add := func(sev Severity, format string, args ...any) {
		findings = append(findings, Finding{Field: f.Name, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	findings = append(findings, checkFieldName(f.Name, f.Type, f.RefTarget != "")...)
	if !f.Type.Valid() {
		if f.Type == "" {
			add(SeverityError, "missing \"type\"")
		} else {
			add(SeverityError, "unknown type %q (allowed: %s)", f.Type, typeList())
		}
		return findings
	}
	if f.RefTarget != "" && f.Type != TypeString {
		add(SeverityError, "refTarget needs type \"string\", not %q", f.Type)
	}
	if f.Type == TypeDecimal {
		if f.Meta.Precision < 1 || f.Meta.Precision > 38 {
			add(SeverityError, "decimal needs meta.precision between 1 and 38 (got %d)", f.Meta.Precision)
		} else if f.Meta.Scale < 0 || f.Meta.Scale > f.Meta.Precision {
			add(SeverityError, "decimal needs meta.scale between 0 and precision %d (got %d)", f.Meta.Precision, f.Meta.Scale)
		}
	} else if f.Meta.Precision != 0 || f.Meta.Scale != 0 {
		add(SeverityError, "meta.precision and meta.scale apply only to decimal fields")
	}
	if f.Meta.Integer && f.Type != TypeNumber {
		add(SeverityError, "meta.integer applies only to number fields")
	}
	if f.Type.IsStructured() && (f.Meta.Unique || f.Meta.Index) {
		add(SeverityError, "meta.unique and meta.index do not apply to %s fields", f.Type)
	}
	switch {
	case f.Meta.UniqueIgnoreCase && !f.Type.IsTextual():
		add(SeverityError, "meta.uniqueIgnoreCase applies only to string and text fields")
	case f.Meta.UniqueIgnoreCase && !f.Meta.Unique:
		add(SeverityError, "meta.uniqueIgnoreCase needs meta.unique: true")
	}
	for _, msg := range fileMetaProblems(f) {
		add(SeverityError, "%s", msg)
	}
	if f.Meta.Default != nil && !hasError(findings) {
		if _, err := NormalizeValue(f, f.Meta.Default); err != nil {
			add(SeverityError, "meta.default %s", err.Error())
		}
	}
	return findings
}

// hasError reports whether any finding is an error (warnings, such as a
// naming convention, do not stop the checks that follow them).
func hasError(findings []Finding) bool {
	for _, f := range findings {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

func typeList() string {
	ts := FieldTypes()
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// resolveRefs points each refTarget at a registry key: the key itself, a
// collection of that name in the same layer, or the only collection of
// that name.
func resolveRefs(c *Collection, reg *Registry, byName map[string][]*Collection) []Finding {
	var findings []Finding
	for i := range c.fields {
		f := &c.fields[i]
		if f.RefTarget == "" || f.Type != TypeString {
			continue
		}
		target, msg := resolveRef(c, f.RefTarget, reg, byName)
		if target == nil {
			findings = append(findings, Finding{File: c.file, Collection: c.name, Field: f.Name, Severity: SeverityError, Message: "refTarget " + msg})
			continue
		}
		f.RefTarget = target.key
	}
	return findings
}

func resolveRef(c *Collection, ref string, reg *Registry, byName map[string][]*Collection) (*Collection, string) {
	if t, ok := reg.byKey[ref]; ok {
		return t, ""
	}
	cs := byName[ref]
	for _, t := range cs {
		if t.layer == c.layer {
			return t, ""
		}
	}
	switch len(cs) {
	case 0:
		return nil, fmt.Sprintf("%q names no collection", ref)
	case 1:
		return cs[0], ""
	}
	return nil, fmt.Sprintf("%q is ambiguous: use the registry key (%s)", ref, keysOf(cs))
}

// defaultConfig is the CollectionConfig before any settings.
func defaultConfig(c *Collection) Config {
	if c.external {
		return Config{Name: c.name, Layer: ExternalLayer, APIPath: c.name, FetchStrategy: "query", DisplayName: humanize(c.name)}
	}
	return Config{
		Name:          c.name,
		Layer:         c.layer,
		ComponentName: pascal(c.key) + "Form",
		Kind:          "data",
		Container:     "slideover",
		APIPath:       c.layer + "-" + c.name,
		DisplayName:   humanize(c.name),
		FetchStrategy: "query",
	}
}

// mergeSettings applies settings over c; a partial defaultPagination,
// hierarchy or sortable fills only what it names.
func (c *Config) mergeSettings(o Config) {
	pag, hier, srt := c.DefaultPagination, c.Hierarchy, c.Sortable
	// Copy o's maps, slices and pointers first: fillDerived writes into
	// References, and a registry must share nothing with the settings it
	// was built from (Go overrides are reused by every rebuild).
	c.merge(o.clone())
	if hier != nil && o.Hierarchy != nil {
		h := *o.Hierarchy // enabled comes from the later settings
		h.ParentField = or(h.ParentField, hier.ParentField)
		h.PathField = or(h.PathField, hier.PathField)
		h.DepthField = or(h.DepthField, hier.DepthField)
		h.OrderField = or(h.OrderField, hier.OrderField)
		h.MoveRole = or(h.MoveRole, hier.MoveRole)
		c.Hierarchy = &h
	}
	if srt != nil && o.Sortable != nil {
		s := *o.Sortable
		s.OrderField = or(s.OrderField, srt.OrderField)
		s.ReorderRole = or(s.ReorderRole, srt.ReorderRole)
		c.Sortable = &s
	}
	if pag != nil && o.DefaultPagination != nil {
		p := *pag
		if o.DefaultPagination.CurrentPage != 0 {
			p.CurrentPage = o.DefaultPagination.CurrentPage
		}
		if o.DefaultPagination.PageSize != 0 {
			p.PageSize = o.DefaultPagination.PageSize
		}
		if o.DefaultPagination.SortBy != "" {
			p.SortBy = o.DefaultPagination.SortBy
		}
		if o.DefaultPagination.SortDirection != "" {
			p.SortDirection = o.DefaultPagination.SortDirection
		}
		c.DefaultPagination = &p
	}
}

// fillDerived computes what follows from the fields: references, runtime
// field metadata, hierarchy and sortable field names. Identity (name,
// layer) always comes from the definition.
func (c *Config) fillDerived(col *Collection) {
	c.Name, c.Layer = col.name, col.layer
	for _, f := range col.fields {
		if f.RefTarget != "" {
			if c.References == nil {
				c.References = map[string]string{}
			}
			if _, set := c.References[f.Name]; !set {
				c.References[f.Name] = f.RefTarget
			}
		}
	}
	if c.Fields == nil {
		for _, f := range col.fields {
			c.Fields = append(c.Fields, FieldInfo{Name: f.Name, Type: f.Type, Label: f.Meta.Label, Area: f.Meta.Area, DisplayAs: f.Meta.DisplayAs})
		}
	}
	if h := c.Hierarchy; h != nil && h.Enabled {
		hh := *h
		hh.ParentField = or(hh.ParentField, "parentId")
		hh.PathField = or(hh.PathField, "path")
		hh.DepthField = or(hh.DepthField, "depth")
		hh.OrderField = or(hh.OrderField, "order")
		c.Hierarchy = &hh
	}
	if s := c.Sortable; s != nil && s.Enabled {
		ss := *s
		ss.OrderField = or(ss.OrderField, "order")
		c.Sortable = &ss
	}
	if c.UseMetadata == nil {
		t := !col.external
		c.UseMetadata = &t
	}
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// fileMetaProblems checks the file settings of a field (maxSize,
// mimeTypes, multiple, maxFiles, thumbs): they apply to image and file
// fields only, thumbs to image fields only.
func fileMetaProblems(f *Field) []string {
	m := f.Meta
	if !f.Type.IsFile() {
		if m.MaxSize != 0 || len(m.MimeTypes) > 0 || m.Multiple || m.MaxFiles != 0 || len(m.Thumbs) > 0 {
			return []string{"meta.maxSize, meta.mimeTypes, meta.multiple, meta.maxFiles and meta.thumbs apply only to image and file fields"}
		}
		return nil
	}
	var msgs []string
	if m.MaxSize < 0 {
		msgs = append(msgs, "meta.maxSize must be a positive number of bytes")
	}
	if m.MaxFiles < 0 || m.MaxFiles > 0 && !m.Multiple {
		msgs = append(msgs, "meta.maxFiles must be positive and needs meta.multiple: true")
	}
	for _, t := range m.MimeTypes {
		typ, sub, ok := strings.Cut(t, "/")
		if !ok || typ == "" || sub == "" || typ == "*" || strings.ContainsAny(t, " ;,") {
			msgs = append(msgs, fmt.Sprintf("meta.mimeTypes: %q is not a content type like \"application/pdf\" or \"image/*\"", t))
		}
	}
	if len(m.Thumbs) > 0 && f.Type != TypeImage {
		msgs = append(msgs, "meta.thumbs applies only to image fields")
	}
	for _, t := range m.Thumbs {
		if _, _, ok := ParseThumbSize(t); !ok {
			msgs = append(msgs, fmt.Sprintf("meta.thumbs: %q is not a size like \"100x100\" (width and height 0..4096, not both 0)", t))
		}
	}
	return msgs
}
