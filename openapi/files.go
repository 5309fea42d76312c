package openapi

import (
	"fmt"
	"net/http"

	"github.com/collectionkit/kit/collections"
)

// SchemaFile names the component of a file as records answer it, for
// collections with image or file fields: {name, size, contentType, url,
// width?, height?}.
const SchemaFile = "KitFile"

// hasFileFields reports whether c has an image or file field.
func hasFileFields(c *collections.Collection) bool {
	for _, a := range c.Attributes() {
		if a.Field != nil && a.Type.IsFile() {
			return true
		}
	}
	return false
}

// withFileRefs returns s with every inline KitFile object schema replaced
// by a reference to the component, which it adds to d on first use.
func withFileRefs(d *Document, s Schema) (Schema, error) {
	var err error
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			if x["title"] == collections.KitFileSchemaTitle && x["type"] == "object" {
				if _, ok := d.Components.Schemas[SchemaFile]; !ok {
					if e := d.AddSchema(SchemaFile, x); e != nil {
						err = e
					}
				}
				return Ref(SchemaFile)
			}
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[k] = walk(e)
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = walk(e)
			}
			return out
		}
		return v
	}
	out := walk(s).(map[string]any)
	return out, err
}

// multipartBody is the multipart/form-data body of a create or update of
// c: a binary part per file field (a list with meta.multiple), the other
// fields as form values, or all of them as JSON in a part named data.
func multipartBody(c *collections.Collection) Schema {
	props := Schema{"data": Schema{"type": "string", "contentMediaType": "application/json",
		"description": "the other fields as one JSON object, instead of separate form values"}}
	for _, a := range c.Attributes() {
		if a.Field == nil || a.System || a.Managed != "" {
			continue
		}
		f := a.Field
		if !f.Type.IsFile() {
			props[f.Name] = Schema{"type": "string", "description": fmt.Sprintf("the %s value as text (numbers, true/false, JSON for json, repeater and array fields; empty is null)", f.Type)}
			continue
		}
		maxSize, maxFiles := f.FileLimits()
		bin := Schema{"type": "string", "contentMediaType": "application/octet-stream",
			"description": fmt.Sprintf("a file of at most %d bytes (larger: 413)", maxSize), "maxLength": maxSize}
		// The parts "field+" (append) and "field-" (remove by name) are
		// described, not listed: generated clients would name them as the
		// field itself.
		if f.Meta.Multiple {
			props[f.Name] = Schema{"type": "array", "items": bin, "maxItems": maxFiles,
				"description": fmt.Sprintf("replaces the list (at most %d files); an empty value clears it; parts named %q append, values named %q remove a file by name", maxFiles, f.Name+"+", f.Name+"-")}
		} else {
			bin["description"] = fmt.Sprintf("%s; an empty value clears it", bin["description"])
			props[f.Name] = bin
		}
	}
	return Schema{"type": "object", "properties": props}
}

// withMultipart adds the multipart body to a create or update operation
// of c with file fields, and the statuses uploads answer.
func withMultipart(op *Operation, c *collections.Collection) *Operation {
	if !hasFileFields(c) {
		return op
	}
	op.RequestBody.Content["multipart/form-data"] = MediaType{Schema: multipartBody(c)}
	op.Description += " Files are uploaded as multipart/form-data (see docs/files.md): a file larger than its field's maxSize is a 413, " +
		"a type its field does not take a 415, both naming the field."
	return op.AddErrors(http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
}

// fileDownloadOp is the download route of c's files.
func fileDownloadOp(c *collections.Collection, item, op string, tags []string, team, id *Parameter) routeOp {
	var fields []any
	for _, a := range c.Attributes() {
		if a.Field != nil && a.Type.IsFile() {
			fields = append(fields, a.Name)
		}
	}
	binary := Schema{"type": "string", "contentMediaType": "application/octet-stream"}
	return routeOp{http.MethodGet, item + "/files/{field}/{name}", (&Operation{
		OperationID: "downloadFile" + op, Tags: tags,
		Summary: "Download a file of a record of " + c.Name(),
		Description: "Serves the file to whoever may read the record, or to anyone with the signed URL a record's answer gives " +
			"(expires and sig); a missing or foreign record, field or file is the same 404. Ranges, ETag and If-None-Match as " +
			"http.ServeContent; X-Content-Type-Options: nosniff; Content-Disposition attachment for types a browser could run. " +
			"?thumb=WxH serves one of an image field's meta.thumbs sizes (others: 400).",
		Parameters: []*Parameter{team, id,
			{Name: "field", In: "path", Required: true, Schema: Schema{"type": "string", "enum": fields}},
			{Name: "name", In: "path", Required: true, Schema: Schema{"type": "string"}},
			{Name: "thumb", In: "query", Schema: Schema{"type": "string", "pattern": `^\d+x\d+$`}},
			{Name: "expires", In: "query", Schema: Schema{"type": "string"}},
			{Name: "sig", In: "query", Schema: Schema{"type": "string"}},
		},
		Responses: map[string]*Response{
			"200": {Description: "the file", Content: map[string]MediaType{"application/octet-stream": {Schema: binary}}},
			"206": {Description: "a range of the file", Content: map[string]MediaType{"application/octet-stream": {Schema: binary}}},
			"304": {Description: "not modified (If-None-Match)"},
		},
	}).AddErrors(400, 401, 403, 404, 500)}
}
