package kit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/disintegration/imaging"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/files"
)

// registerFileRoutes adds the download route.
func (k *Kit) registerFileRoutes(add func(method, path string, h http.HandlerFunc)) {
	add(http.MethodGet, "/teams/{team}/{apiPath}/{id}/files/{field}/{name}", k.serveFile)
}

// inlineTypes are the types served inline; anything else a browser could
// run (SVG, HTML, XML, scripts) or does not know is an attachment.
var inlineTypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/bmp": true,
	"application/pdf": true, "text/plain": true,
	"audio/mpeg": true, "audio/wave": true, "audio/ogg": true, "video/mp4": true, "video/webm": true, "video/ogg": true,
}

// maxThumbPixels bounds the images kit decodes for a thumbnail (width
// times height): 50 megapixels, some 200 MB decoded.
const maxThumbPixels = 50_000_000

// serveFile serves one file of a record to whoever may read the record,
// or to anyone with a valid signed URL: the identical 404 for a missing
// or foreign record, field or file. ?thumb=WxH serves a thumbnail of one
// of the field's meta.thumbs sizes (another size is a 400), made on the
// first request and kept in the bucket.
func (k *Kit) serveFile(w http.ResponseWriter, r *http.Request) {
	if k.files.signed(r) {
		k.serveSignedFile(w, r)
		return
	}
	k.collectionRoute(func(w http.ResponseWriter, r *http.Request, call collectionCall) {
		rec, err := k.Records(call.c.Key()).Get(r.Context(), call.actor, r.PathValue("id"))
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				err = errFileNotFound
			}
			k.WriteError(w, r, err)
			return
		}
		k.serveFileOf(w, r, call.c, rec)
	})(w, r)
}

// serveSignedFile serves a file whose URL is signed: the record is read
// in the URL's team without a caller.
func (k *Kit) serveSignedFile(w http.ResponseWriter, r *http.Request) {
	c, ok := k.Collections().ByAPIPath(r.PathValue("apiPath"))
	if !ok || c.External() {
		k.WriteError(w, r, errFileNotFound)
		return
	}
	rec, err := k.store.GetAnyTeam(r.Context(), k.db, c, r.PathValue("id"))
	if err != nil || rec["teamId"] != r.PathValue("team") {
		k.WriteError(w, r, errFileNotFound)
		return
	}
	k.serveFileOf(w, r, c, rec)
}

// serveFileOf serves the file the path names of rec.
func (k *Kit) serveFileOf(w http.ResponseWriter, r *http.Request, c *collections.Collection, rec Record) {
	f, ok := fileField(c, r.PathValue("field"))
	if !ok {
		k.WriteError(w, r, errFileNotFound)
		return
	}
	file, ok := fileNamed(FilesOf(rec, f.Name), r.PathValue("name"))
	if !ok {
		k.WriteError(w, r, errFileNotFound)
		return
	}
	key, ctype := file.Key, file.ContentType
	if thumb := r.URL.Query().Get("thumb"); thumb != "" {
		var err error
		if key, ctype, err = k.thumbnail(r.Context(), f, file, thumb); err != nil {
			k.WriteError(w, r, err)
			return
		}
	}
	b, err := k.files.bucket.Open(r.Context(), key)
	if errors.Is(err, files.ErrNotExist) {
		k.WriteError(w, r, errFileNotFound)
		return
	}
	if err != nil {
		k.WriteError(w, r, &Error{Status: http.StatusInternalServerError, Message: "cannot read the file", Err: err})
		return
	}
	defer b.Close()
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	if mediaType(ctype) != "application/pdf" {
		// A sandboxed document runs no script; browsers refuse to show a
		// PDF under sandbox, and their PDF viewers run none of its own.
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	}
	h.Set("Cache-Control", "private, max-age=3600")
	// A key is never written twice: its name is a strong validator.
	h.Set("ETag", etagOf([]byte(key)))
	disposition := "attachment"
	if inlineTypes[mediaType(ctype)] {
		disposition = "inline"
	}
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": file.Name}))
	http.ServeContent(w, r, "", b.Info().ModTime, b)
}

// errBadThumb answers a thumbnail size the field does not list.
func errBadThumb(f *collections.Field, size string) error {
	if len(f.Meta.Thumbs) == 0 {
		return fileErr(http.StatusBadRequest, f.Name, "has no thumbnails (meta.thumbs)")
	}
	return fileErr(http.StatusBadRequest, f.Name, "has no thumbnail of size %q (meta.thumbs: %s)", size, strings.Join(f.Meta.Thumbs, ", "))
}

// thumbnail returns the key and type of file's thumbnail of size, making
// and storing it when it is not stored yet. Two first requests at once
// may both make it; the second write replaces the first with the same
// bytes.
func (k *Kit) thumbnail(ctx context.Context, f *collections.Field, file File, size string) (string, string, error) {
	if !containsString(f.Meta.Thumbs, size) || file.Width == 0 {
		return "", "", errBadThumb(f, size)
	}
	w, h, _ := collections.ParseThumbSize(size)
	dir, _ := thumbDirOf(file.Key)
	key := dir + size
	ctype := "image/png"
	if mediaType(file.ContentType) == "image/jpeg" {
		ctype = "image/jpeg"
	}
	if b, err := k.files.bucket.Open(ctx, key); err == nil {
		_ = b.Close()
		return key, ctype, nil
	}
	if file.Width*file.Height > maxThumbPixels {
		return "", "", fileErr(http.StatusBadRequest, f.Name, "is too large an image to make thumbnails of (more than %d pixels)", maxThumbPixels)
	}
	src, err := k.files.bucket.Open(ctx, file.Key)
	if err != nil {
		return "", "", errFileNotFound
	}
	img, _, err := image.Decode(io.Reader(src))
	_ = src.Close()
	if err != nil {
		return "", "", &Error{Status: http.StatusInternalServerError, Message: "cannot decode the image", Err: err}
	}
	var out image.Image
	if w > 0 && h > 0 {
		out = imaging.Fill(img, w, h, imaging.Center, imaging.Lanczos)
	} else {
		out = imaging.Resize(img, w, h, imaging.Lanczos)
	}
	var buf bytes.Buffer
	format := imaging.PNG
	if ctype == "image/jpeg" {
		format = imaging.JPEG
	}
	if err := imaging.Encode(&buf, out, format); err != nil {
		return "", "", fmt.Errorf("kit: encode thumbnail: %w", err)
	}
	if _, err := k.files.bucket.Put(ctx, key, &buf, ctype); err != nil {
		return "", "", &Error{Status: http.StatusInternalServerError, Message: "cannot store the thumbnail", Err: err}
	}
	return key, ctype, nil
}

// presentAll is presentFiles of each record.
func (k *Kit) presentAll(c *collections.Collection, recs []Record) []Record {
	out := make([]Record, len(recs))
	for i, rec := range recs {
		out[i] = k.presentFiles(c, rec)
	}
	return out
}

// writeFileRecords answers recs (the ?ids= strategy) with their files
// presented; single carries the ETag of the one record as stored.
func (k *Kit) writeFileRecords(w http.ResponseWriter, c *collections.Collection, recs []Record, single bool) {
	if single {
		w.Header().Set("ETag", ETag(recs[0]))
	}
	WriteJSON(w, http.StatusOK, k.presentAll(c, recs))
}
