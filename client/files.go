package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
)

// File is a file of an image or file field as records carry it: its
// name, size, sniffed content type, signed download URL (a path on the
// server) and, for images, its size in pixels.
type File struct {
	Name        string `json:"name"`
	Size        int64  `json:"size"`
	ContentType string `json:"contentType"`
	URL         string `json:"url"`
	Width       int    `json:"width,omitempty"`
	Height      int    `json:"height,omitempty"`
}

// FilesOf returns the files of rec's field: one for a single file field,
// the list of a multiple one, none for null or a value that is not a file.
func FilesOf(rec Record, field string) []File {
	raw, err := json.Marshal(rec[field])
	if err != nil {
		return nil
	}
	var list []File
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	var one File
	if json.Unmarshal(raw, &one) == nil && one.Name != "" {
		return []File{one}
	}
	return nil
}

// Upload is one file sent to a field.
type Upload struct {
	// Field is the image or file field.
	Field string
	// Name is the file's name (the server sanitizes it).
	Name string
	// Body is read to its end, streamed to the server.
	Body io.Reader
	// Append adds the file to a multiple field's list (a part named
	// "field+"); otherwise the uploads of a field replace its file or
	// list.
	Append bool
}

// FileChanges is a write with files: multipart/form-data, as docs/files.md
// describes.
type FileChanges struct {
	// Values are the other fields (a map or a struct with JSON tags),
	// sent as JSON in the part named data; nil sends none.
	Values any
	// Uploads are the files to send, in order.
	Uploads []Upload
	// Remove names, per field, files to remove ("field-" values).
	Remove map[string][]string
	// Clear lists fields whose files are all removed.
	Clear []string
}

// CreateWithFiles creates a record from ch (its values and uploads) and
// returns it as stored: POST /{apiPath} as multipart/form-data. The
// uploads stream; a refused one is an [*Error] (413 too large, 415 a type
// the field does not take, 400) whose Data names the field.
func (t *TypedCollection[T]) CreateWithFiles(ctx context.Context, ch FileChanges) (T, error) {
	var rec T
	err := t.sendFiles(ctx, http.MethodPost, "", ch, nil, &rec)
	return rec, err
}

// UpdateFiles applies ch to record id (uploads replace or append, Remove
// and Clear remove files, Values change other fields) and returns the
// stored record: PATCH /{apiPath}/{id} as multipart/form-data. With
// [IfMatch] it is applied only if the record has not changed.
func (t *TypedCollection[T]) UpdateFiles(ctx context.Context, id string, ch FileChanges, opts ...UpdateOption) (T, error) {
	var rec T
	header := http.Header{}
	for _, o := range opts {
		o(header)
	}
	err := t.sendFiles(ctx, http.MethodPatch, "/"+url.PathEscape(id), ch, header, &rec)
	return rec, err
}

// RemoveFile removes the file name from record id's field and returns
// the stored record.
func (t *TypedCollection[T]) RemoveFile(ctx context.Context, id, field, name string, opts ...UpdateOption) (T, error) {
	return t.UpdateFiles(ctx, id, FileChanges{Remove: map[string][]string{field: {name}}}, opts...)
}

// sendFiles streams ch as a multipart body (never retried: the body is
// read once).
func (t *TypedCollection[T]) sendFiles(ctx context.Context, method, sub string, ch FileChanges, header http.Header, out any) error {
	cfg, path, err := t.endpoint(ctx)
	if err != nil {
		return err
	}
	defer t.invalidate(ctx, cfg)
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() { pw.CloseWithError(writeFileChanges(mw, ch)) }()
	defer pr.Close()
	u := *t.c.base
	u.Path, u.RawPath = "", ""
	target := u.String() + t.c.base.EscapedPath() + path + sub
	req, err := http.NewRequestWithContext(ctx, method, target, pr)
	if err != nil {
		return fmt.Errorf("kit client: %w", err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Accept", "application/json")
	t.c.authorize(req)
	resp, err := t.c.http.Do(req)
	if err != nil {
		return fmt.Errorf("kit client: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("kit client: %s %s: read answer: %w", method, path+sub, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return decodeError(resp, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("kit client: %s %s: decode answer: %w", method, path+sub, err)
	}
	return nil
}

// writeFileChanges writes ch's parts and closes mw.
func writeFileChanges(mw *multipart.Writer, ch FileChanges) error {
	if ch.Values != nil {
		raw, err := json.Marshal(ch.Values)
		if err != nil {
			return fmt.Errorf("kit client: encode values: %w", err)
		}
		if err := mw.WriteField("data", string(raw)); err != nil {
			return err
		}
	}
	for _, f := range ch.Clear {
		if err := mw.WriteField(f, ""); err != nil {
			return err
		}
	}
	for field, names := range ch.Remove {
		for _, n := range names {
			if err := mw.WriteField(field+"-", n); err != nil {
				return err
			}
		}
	}
	for _, up := range ch.Uploads {
		name := up.Field
		if up.Append {
			name += "+"
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf("form-data; name=%s; filename*=UTF-8''%s", quote(name), url.PathEscape(up.Name)))
		h.Set("Content-Type", "application/octet-stream")
		w, err := mw.CreatePart(h)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, up.Body); err != nil {
			return fmt.Errorf("kit client: read %s: %w", up.Name, err)
		}
	}
	return mw.Close()
}

// quote is a quoted-string of s (field names are plain ASCII).
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// FileURL returns the absolute URL of f (signed: usable in an <img> tag
// or a link until it expires), of its thumbnail of size thumb ("100x100",
// one of the field's meta.thumbs) when thumb is not empty.
func (c *Client) FileURL(f File, thumb string) string {
	u := url.URL{Scheme: c.base.Scheme, Host: c.base.Host}
	s := u.String() + f.URL
	if thumb != "" {
		sep := "?"
		if strings.Contains(f.URL, "?") {
			sep = "&"
		}
		s += sep + "thumb=" + url.QueryEscape(thumb)
	}
	return s
}

// Download opens f (its thumbnail of size thumb when not empty) for
// reading; close it when done. A file the caller may no longer read is an
// [*Error] matching [ErrNotFound].
func (c *Client) Download(ctx context.Context, f File, thumb string) (io.ReadCloser, error) {
	return c.openBody(ctx, c.FileURL(f, thumb))
}

// openBody GETs url and returns the body of its 200 answer for reading;
// any other answer is decoded as an [*Error].
func (c *Client) openBody(ctx context.Context, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("kit client: %w", err)
	}
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("kit client: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return nil, decodeError(resp, raw)
	}
	return resp.Body, nil
}

// authorize sets the token and user agent of req.
func (c *Client) authorize(req *http.Request) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
}

// CreateWithFiles creates a record with files (see
// [TypedCollection.CreateWithFiles]).
func (col *Collection) CreateWithFiles(ctx context.Context, ch FileChanges) (Record, error) {
	return col.typed.CreateWithFiles(ctx, ch)
}

// UpdateFiles changes a record's files and values (see
// [TypedCollection.UpdateFiles]).
func (col *Collection) UpdateFiles(ctx context.Context, id string, ch FileChanges, opts ...UpdateOption) (Record, error) {
	return col.typed.UpdateFiles(ctx, id, ch, opts...)
}

// RemoveFile removes one file of a record's field (see
// [TypedCollection.RemoveFile]).
func (col *Collection) RemoveFile(ctx context.Context, id, field, name string, opts ...UpdateOption) (Record, error) {
	return col.typed.RemoveFile(ctx, id, field, name, opts...)
}
