package kit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	_ "image/gif"  // image fields take GIF
	_ "image/jpeg" // image fields take JPEG
	_ "image/png"  // image fields take PNG
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/google/uuid"
	_ "golang.org/x/image/webp" // image fields take WebP

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/files"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/wire"
)

// Writes of collections with image or file fields, and every
// multipart/form-data write (see docs/files.md):
//
//   - a file part named after a field (PocketBase's convention) sets the
//     field's file (a field that is not multiple) or its files (with
//     meta.multiple: the parts named after it, in order, replace the
//     list); a part named "field+" appends to the list;
//   - a form value "field-" removes the file of that name; a form value
//     "field" that is empty clears the field;
//   - other form values are the other fields, converted to their types;
//     or a part named "data" holds them as one JSON object;
//   - in JSON (a body, or the "data" part) a file field's value is null
//     (clear it) or the record's own files (objects with their names):
//     those are kept, in that order, the others removed. Bytes never come
//     as JSON.
//
// Each blob is written before the record's transaction commits; a
// failed write removes the blobs it wrote, a committed one the blobs it
// replaced or removed.

// fieldFiles is what one request does to one file field.
type fieldFiles struct {
	f       *collections.Field
	reset   bool     // the list starts empty ("field" parts, "" or null)
	keep    []string // JSON: the names of the record's files to keep
	hasKeep bool
	uploads []File
	remove  []string
	// link, set by a JSON string, is an external URL the field holds
	// instead of files (see keepNames).
	link *string
}

// fileRequest is a parsed write: the values of the other fields and the
// file changes.
type fileRequest struct {
	c       *collections.Collection
	team    string
	id      string
	data    map[string]any
	fields  map[string]*fieldFiles
	written []string // blob keys this request wrote
}

func (fr *fileRequest) field(f *collections.Field) *fieldFiles {
	ff, ok := fr.fields[f.Name]
	if !ok {
		ff = &fieldFiles{f: f}
		fr.fields[f.Name] = ff
	}
	return ff
}

// isMultipart reports whether r's body is multipart/form-data.
func isMultipart(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "multipart/form-data"
}

// servesFileWrite reports whether a create or update goes through
// serveFileWrite.
func servesFileWrite(r *http.Request, c *collections.Collection) bool {
	return isMultipart(r) || hasFileFields(c)
}

// serveFileWrite creates (id "") or updates record id from a multipart or
// JSON body with file fields.
func (k *Kit) serveFileWrite(w http.ResponseWriter, r *http.Request, call collectionCall, id string) {
	ctx := r.Context()
	var before Record
	opts := WriteOptions{}
	if id != "" {
		o, err := ifMatchOf(r)
		if err != nil {
			k.WriteError(w, r, err)
			return
		}
		if before, err = k.readBefore(ctx, call, id); err != nil {
			k.WriteError(w, r, err)
			return
		}
		if err := o.check(before); err != nil {
			k.writeWriteError(w, r, err)
			return
		}
		// The files are computed from before: a change since is a 412.
		opts.IfMatch = []string{ETag(before)}
	} else {
		u, err := uuid.NewV7()
		if err != nil {
			k.WriteError(w, r, err)
			return
		}
		id = u.String()
	}
	fr := &fileRequest{c: call.c, team: call.actor.TeamID, id: id, fields: map[string]*fieldFiles{}}
	rec, removed, err := k.runFileWrite(ctx, r, w, fr, call.actor, before, opts)
	if err != nil {
		k.removeBlobs(ctx, fr.written)
		k.writeWriteError(w, r, err)
		return
	}
	if call.actor.batch == nil {
		// Inside a batch the transaction commits later, or not: the
		// blobs it no longer refers to are left to the sweep.
		k.removeBlobs(ctx, removed)
	}
	status := http.StatusOK
	if before == nil {
		status = http.StatusCreated
		w.Header().Set("Location", r.URL.Path+"/"+id)
	}
	k.writeFileRecord(w, status, call.c, rec)
}

// readBefore reads the record an update changes: in a batch, inside its
// transaction, which may have written it.
func (k *Kit) readBefore(ctx context.Context, call collectionCall, id string) (Record, error) {
	if b := call.actor.batch; b != nil {
		return k.store.Get(ctx, store.Read{Tx: b.tx}, call.c, call.actor.TeamID, id)
	}
	return k.Records(call.c.Key()).Get(ctx, call.actor, id)
}

// runFileWrite reads the body into fr (writing the uploads), computes
// the file fields' new values and writes the record. It returns the
// record and the keys of the blobs it no longer refers to.
func (k *Kit) runFileWrite(ctx context.Context, r *http.Request, w http.ResponseWriter, fr *fileRequest, a Actor, before Record, opts WriteOptions) (Record, []string, error) {
	if isMultipart(r) {
		if err := k.readMultipart(ctx, w, r, fr); err != nil {
			return nil, nil, err
		}
	} else {
		data, err := k.readBody(w, r)
		if err != nil {
			return nil, nil, err
		}
		fr.data = map[string]any{}
		if err := fr.addJSON(data); err != nil {
			return nil, nil, err
		}
	}
	var removed []string
	for name, ff := range fr.fields {
		if err := ff.checkLink(before); err != nil {
			return nil, nil, err
		}
		base := FilesOf(before, name)
		list, err := ff.apply(base)
		if err != nil {
			return nil, nil, err
		}
		kept := map[string]bool{}
		for _, f := range list {
			kept[f.Key] = true
		}
		for _, f := range base {
			if !kept[f.Key] {
				removed = append(removed, f.Key)
			}
		}
		fr.data[name] = encodeFiles(ff.f, list)
		if ff.link != nil && len(list) == 0 {
			fr.data[name] = *ff.link
		}
	}
	recs := k.Records(fr.c.Key())
	if before == nil {
		rec, err := recs.create(ctx, a, fr.data, fr.id)
		return rec, nil, err
	}
	rec, err := recs.UpdateWith(ctx, a, fr.id, fr.data, opts)
	return rec, removed, err
}

// addJSON takes a JSON object's values: file fields as keep lists, the
// others as they are.
func (fr *fileRequest) addJSON(obj map[string]any) error {
	for name, v := range obj {
		if _, dup := fr.data[name]; dup {
			return fileErr(http.StatusBadRequest, name, "is given twice")
		}
		f, ok := fileField(fr.c, name)
		if !ok {
			fr.data[name] = v
			continue
		}
		ff := fr.field(f)
		if ff.hasKeep {
			return fileErr(http.StatusBadRequest, name, "is given twice")
		}
		if link, ok := v.(string); ok && link != "" {
			ff.hasKeep, ff.keep, ff.link = true, []string{}, &link // checked by checkLink
			continue
		}
		names, err := keepNames(v)
		if err != nil {
			return fileErr(http.StatusBadRequest, name, "%s", err.Error())
		}
		ff.hasKeep, ff.keep = true, names
	}
	return nil
}

// checkLink refuses a link that is not an http(s) or relative URL,
// unless it is the value the record holds (a form sending back what it
// read changes nothing).
func (ff *fieldFiles) checkLink(before Record) error {
	if ff.link == nil || wire.IsLinkURL(*ff.link) || before[ff.f.Name] == *ff.link {
		return nil
	}
	return fileErr(http.StatusBadRequest, ff.f.Name, "%s", errJSONFile.Error())
}

// errJSONFile explains what a JSON value of a file field may be.
var errJSONFile = errors.New("files are uploaded as multipart/form-data parts; as JSON a file field is null (no file), the record's own files (objects with their name), which it keeps, or the http(s) or relative URL of a file kept elsewhere")

// keepNames reads a file field's JSON value: null or "" (none), a file
// object, or a list of them, each with its name. (A non-empty string, the
// URL of a file kept elsewhere, as fields held before kit kept files, is
// taken by addJSON.)
func keepNames(v any) ([]string, error) {
	var items []any
	switch x := v.(type) {
	case nil:
		return []string{}, nil
	case string:
		if x == "" {
			return []string{}, nil
		}
		return nil, errJSONFile
	case map[string]any:
		items = []any{x}
	case []any:
		items = x
	default:
		return nil, errJSONFile
	}
	names := make([]string, 0, len(items))
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, errJSONFile
		}
		n, ok := m["name"].(string)
		if !ok {
			return nil, errJSONFile
		}
		names = append(names, n)
	}
	return names, nil
}

// apply returns the field's new files, from the record's base.
func (ff *fieldFiles) apply(base []File) ([]File, error) {
	name := ff.f.Name
	list := base
	switch {
	case ff.hasKeep:
		list = nil
		for _, n := range ff.keep {
			f, ok := fileNamed(base, n)
			if !ok {
				return nil, fileErr(http.StatusBadRequest, name, "has no file named %q (new files are uploaded as multipart/form-data parts)", n)
			}
			list = append(list, f)
		}
	case ff.reset:
		list = nil
	}
	var out []File
	for _, f := range list {
		if !containsString(ff.remove, f.Name) {
			out = append(out, f)
		}
	}
	for _, n := range ff.remove {
		if _, ok := fileNamed(list, n); !ok {
			return nil, fileErr(http.StatusBadRequest, name, "has no file named %q to remove", n)
		}
	}
	_, maxFiles := ff.f.FileLimits()
	if !ff.f.Meta.Multiple && len(ff.uploads) > 0 {
		out = nil // a new file replaces the old one
	}
	for _, u := range ff.uploads {
		u.Name = uniqueName(out, u.Name)
		out = append(out, u)
	}
	if len(out) > maxFiles {
		return nil, fileErr(http.StatusBadRequest, name, "takes at most %d files", maxFiles)
	}
	return out, nil
}

func fileNamed(list []File, name string) (File, bool) {
	for _, f := range list {
		if f.Name == name {
			return f, true
		}
	}
	return File{}, false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// uniqueName is name, or name with "-2", "-3", ... before its extension
// when list has a file of that name.
func uniqueName(list []File, name string) string {
	if _, taken := fileNamed(list, name); !taken {
		return name
	}
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 2; ; i++ {
		n := stem + "-" + strconv.Itoa(i) + ext
		if _, taken := fileNamed(list, n); !taken {
			return n
		}
	}
}

// errMalformedMultipart answers a multipart body that cannot be read.
var errMalformedMultipart = &Error{Status: http.StatusBadRequest, Message: "malformed or truncated multipart/form-data body"}

// multipartLimit bounds a multipart body: the JSON body limit for the
// values, and each file field's maxSize times its maxFiles.
func (k *Kit) multipartLimit(c *collections.Collection) int64 {
	limit := k.cfg.MaxBodyBytes + 1<<20
	for _, a := range c.Attributes() {
		if a.Field != nil && a.Type.IsFile() {
			size, n := a.Field.FileLimits()
			limit += (size + 64<<10) * int64(n+1)
		}
	}
	return limit
}

// readMultipart reads the parts of r's body into fr as they come,
// streaming each file part into the bucket.
func (k *Kit) readMultipart(ctx context.Context, w http.ResponseWriter, r *http.Request, fr *fileRequest) error {
	r.Body = http.MaxBytesReader(w, r.Body, k.multipartLimit(fr.c))
	mr, err := r.MultipartReader()
	if err != nil {
		return errMalformedMultipart
	}
	fr.data = map[string]any{}
	values := int64(0)
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return bodyErr(err)
		}
		if err := k.readPart(ctx, fr, p, &values); err != nil {
			return err
		}
	}
}

// bodyErr is the answer to a failed read of the body: 413 past its
// limit, else 400.
func bodyErr(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &Error{Status: http.StatusRequestEntityTooLarge, Message: "the body is larger than the limit", Data: map[string]any{"limit": mbe.Limit}}
	}
	return errMalformedMultipart
}

// readPart reads one part: a file, the "data" JSON object or a value.
// values counts the bytes of values read so far (at most MaxBodyBytes).
func (k *Kit) readPart(ctx context.Context, fr *fileRequest, p *multipart.Part, values *int64) error {
	name := p.FormName()
	if name == "" {
		return errMalformedMultipart
	}
	_, params, _ := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	base, op := name, byte('=')
	if n := len(name); n > 1 && (name[n-1] == '+' || name[n-1] == '-') {
		base, op = name[:n-1], name[n-1]
	}
	if filename, isFile := params["filename"]; isFile {
		f, ok := fileField(fr.c, base)
		if !ok || op == '-' {
			return fileErr(http.StatusBadRequest, base, "is not a file field: it takes no file part")
		}
		return k.upload(ctx, fr, f, p, filename, op == '+')
	}
	raw, err := io.ReadAll(io.LimitReader(p, k.cfg.MaxBodyBytes-*values+1))
	if err != nil {
		return bodyErr(err)
	}
	if *values += int64(len(raw)); *values > k.cfg.MaxBodyBytes {
		return &Error{Status: http.StatusRequestEntityTooLarge, Message: "the form values are larger than the body limit", Data: map[string]any{"limit": k.cfg.MaxBodyBytes}}
	}
	if _, isAttr := fr.c.Attribute(name); name == "data" && !isAttr {
		return fr.addDataPart(raw)
	}
	if f, ok := fileField(fr.c, base); ok {
		ff := fr.field(f)
		switch {
		case op == '-':
			ff.remove = append(ff.remove, string(raw))
		case op == '=' && len(raw) == 0:
			ff.reset = true
		default:
			return fileErr(http.StatusBadRequest, base, "takes file parts; a form value %q names a file to remove, an empty value %q clears it", base+"-", base)
		}
		return nil
	}
	if op != '=' {
		return fileErr(http.StatusBadRequest, base, "is not a file field: %q applies to file fields only", name)
	}
	if _, dup := fr.data[name]; dup {
		return fileErr(http.StatusBadRequest, name, "is given twice")
	}
	fr.data[name] = formValue(fr.c, name, string(raw))
	return nil
}

// addDataPart takes the "data" part: a JSON object of field values.
func (fr *fileRequest) addDataPart(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return fileErr(http.StatusBadRequest, "data", "must be a JSON object of field values")
	}
	return fr.addJSON(obj)
}

// formValue converts a form value to what the field's type takes: numbers
// as exact json.Numbers, "true"/"false" as booleans, JSON for json,
// repeater and array fields, "" as null for every type but string and
// text. What does not convert stays a string, for validation to refuse
// with the field's message.
func formValue(c *collections.Collection, name, s string) any {
	a, ok := c.Attribute(name)
	if !ok || a.Field == nil {
		return s
	}
	t := a.Type
	if s == "" && !t.IsTextual() {
		return nil
	}
	switch {
	case t == collections.TypeNumber:
		return json.Number(strings.TrimSpace(s))
	case t == collections.TypeBoolean:
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	case t.IsStructured():
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			return v
		}
	}
	return s
}

// decodableImages are the types an image field takes: those the server
// decodes (for its size and thumbnails).
var decodableImages = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// mediaType is a content type without its parameters.
func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.TrimSpace(strings.ToLower(mt))
}

// allowedType reports whether ct is in the allow-list (empty: any).
func allowedType(list []string, ct string) bool {
	if len(list) == 0 {
		return true
	}
	mt := mediaType(ct)
	for _, a := range list {
		a = strings.ToLower(a)
		if a == mt || strings.HasSuffix(a, "/*") && strings.HasPrefix(mt, strings.TrimSuffix(a, "*")) {
			return true
		}
	}
	return false
}

// partReader keeps the first error reading the body, so that a failed
// Put is told apart: the client's (truncated, too large) or the store's.
type partReader struct {
	r   io.Reader
	err error
}

func (p *partReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err != nil && err != io.EOF && p.err == nil {
		p.err = err
	}
	return n, err
}

// upload streams one file part into the bucket: its type sniffed from
// its first 512 bytes and checked before anything is written, its size
// bounded by meta.maxSize (reading stops one byte past it), an image's
// size read back from the stored blob.
func (k *Kit) upload(ctx context.Context, fr *fileRequest, f *collections.Field, p io.Reader, filename string, appendTo bool) error {
	ff := fr.field(f)
	maxSize, maxFiles := f.FileLimits()
	src := &partReader{r: p}
	br := bufio.NewReaderSize(src, 512)
	head, err := br.Peek(512)
	if err != nil && err != io.EOF {
		return bodyErr(src.err)
	}
	if len(head) == 0 && filename == "" {
		return nil // a form's file input left empty: no change
	}
	if !appendTo {
		ff.reset = true
	}
	if len(ff.uploads) >= maxFiles {
		return fileErr(http.StatusBadRequest, f.Name, "takes at most %d files", maxFiles)
	}
	ctype := http.DetectContentType(head)
	if f.Type == collections.TypeImage && !decodableImages[mediaType(ctype)] {
		return fileErr(http.StatusUnsupportedMediaType, f.Name, "must be a PNG, JPEG, GIF or WebP image (the bytes are %s)", mediaType(ctype))
	}
	if !allowedType(f.Meta.MimeTypes, ctype) {
		return fileErr(http.StatusUnsupportedMediaType, f.Name, "takes %s, not %s (as judged by the bytes)", strings.Join(f.Meta.MimeTypes, ", "), mediaType(ctype))
	}
	name := files.SafeName(filename)
	key := blobKey(fr.team, fr.c, fr.id, name)
	fr.written = append(fr.written, key)
	n, err := k.files.bucket.Put(ctx, key, io.LimitReader(br, maxSize+1), ctype)
	switch {
	case src.err != nil:
		return bodyErr(src.err)
	case err != nil:
		return &Error{Status: http.StatusInternalServerError, Message: "cannot store the file", Err: err}
	case n > maxSize:
		return &FileError{Status: http.StatusRequestEntityTooLarge, Field: f.Name, Message: "is larger than its limit of " + strconv.FormatInt(maxSize, 10) + " bytes"}
	case n == 0 && f.Meta.Required:
		return fileErr(http.StatusBadRequest, f.Name, "is required: the file is empty")
	}
	file := File{Name: name, Size: n, ContentType: ctype, Key: key}
	if f.Type == collections.TypeImage {
		w, h, err := k.imageSize(ctx, key)
		if err != nil {
			return fileErr(http.StatusUnsupportedMediaType, f.Name, "is not an image the server can decode")
		}
		file.Width, file.Height = w, h
	}
	ff.uploads = append(ff.uploads, file)
	return nil
}

// imageSize reads an image's size from its stored blob (only the header
// is read).
func (k *Kit) imageSize(ctx context.Context, key string) (int, int, error) {
	b, err := k.files.bucket.Open(ctx, key)
	if err != nil {
		return 0, 0, err
	}
	defer b.Close()
	cfg, _, err := image.DecodeConfig(bufio.NewReader(b))
	if err != nil {
		return 0, 0, err
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return 0, 0, errors.New("empty image")
	}
	return cfg.Width, cfg.Height, nil
}

// writeFileRecord answers rec with its files presented, the ETag of the
// record as stored (as conditional writes compare it).
func (k *Kit) writeFileRecord(w http.ResponseWriter, status int, c *collections.Collection, rec Record) {
	if !hasFileFields(c) {
		writeRecord(w, status, rec)
		return
	}
	w.Header().Set("ETag", ETag(rec))
	WriteJSON(w, status, k.presentFiles(c, rec))
}
