package kit_test

import (
	"bytes"
	"strings"
	"testing"
)

// TestFileBadInput sends each bad upload of issue 47 (section 5) and
// checks the exact status, the field named, and that neither a blob nor
// a row was written.
func TestFileBadInput(t *testing.T) {
	t.Parallel()
	eachFileWorld(t, func(t *testing.T, w *fileWorld) {
		big := bytes.Repeat([]byte("%PDF-1.4 "), 600) // 5400 bytes: manual takes 4096
		cases := []struct {
			name   string
			parts  []part
			status int
			field  string
		}{
			{"a file larger than maxSize is a 413 naming the field", []part{valueP("title", "x"), fileP("manual", "m.pdf", big)}, 413, "manual"},
			{"an image larger than maxSize is a 413 naming the field", []part{valueP("title", "x"), fileP("photo", "p.png", append(pngOf(t, 2, 2), make([]byte, 70<<10)...))}, 413, "photo"},
			{"a PNG declared as a PDF is judged by its bytes: 415 naming the field", []part{valueP("title", "x"), {name: "manual", filename: "m.pdf", filenameSet: true, contentType: "application/pdf", body: pngOf(t, 2, 2)}}, 415, "manual"},
			{"text named .png for an image field is a 415 naming the field", []part{valueP("title", "x"), fileP("photo", "p.png", []byte("just some text, not an image"))}, 415, "photo"},
			{"an SVG for an image field is a 415 naming the field", []part{valueP("title", "x"), fileP("photo", "p.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`))}, 415, "photo"},
			{"a PNG header over broken bytes is a 415 naming the field", []part{valueP("title", "x"), fileP("photo", "p.png", append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 100)...))}, 415, "photo"},
			{"an image among a list of images that is not one is a 415 naming the field", []part{valueP("title", "x"), fileP("gallery", "a.png", pngOf(t, 2, 2)), fileP("gallery", "b.png", []byte("nope"))}, 415, "gallery"},
			{"a file sent to a text field is a 400 naming the field", []part{valueP("title", "x"), fileP("stock", "s.txt", []byte("12"))}, 400, "stock"},
			{"a file sent to an unknown field is a 400 naming the field", []part{valueP("title", "x"), fileP("brochure", "b.pdf", pdfBytes)}, 400, "brochure"},
			{"two files for a single file field are a 400 naming the field", []part{valueP("title", "x"), fileP("photo", "a.png", pngOf(t, 2, 2)), fileP("photo", "b.png", pngOf(t, 2, 2))}, 400, "photo"},
			{"more files than maxFiles are a 400 naming the field", []part{valueP("title", "x"), fileP("gallery", "1.png", pngOf(t, 2, 2)), fileP("gallery", "2.png", pngOf(t, 2, 2)), fileP("gallery", "3.png", pngOf(t, 2, 2)), fileP("gallery", "4.png", pngOf(t, 2, 2))}, 400, "gallery"},
			{"a bad value of another field after good files is a 400 naming it", []part{fileP("photo", "a.png", pngOf(t, 2, 2)), valueP("title", "x"), valueP("stock", "many")}, 400, "stock"},
			{"a missing required value after good files is a 400 naming it", []part{fileP("photo", "a.png", pngOf(t, 2, 2))}, 400, "title"},
			{"an empty file where required is a 400 naming the field", []part{fileP("sheet", "c.pdf", nil)}, 400, "sheet"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				rows := w.rows(t)
				url := w.base
				if tc.field == "sheet" {
					url = w.sheets
				}
				a := w.send(t, "POST", url, w.alice, tc.parts...)
				if a.status != tc.status {
					t.Fatalf("got %d %s, want %d", a.status, a.body, tc.status)
				}
				if !strings.Contains(string(a.body), `"`+tc.field+`"`) {
					t.Errorf("got %s, want it to name %q", a.body, tc.field)
				}
				if keys := w.blobs(t); len(keys) != 0 {
					t.Errorf("got blobs %v, want none written", keys)
				}
				if got := w.rows(t); got != rows {
					t.Errorf("got %d rows, want %d (none written)", got, rows)
				}
			})
		}

		t.Run("a truncated multipart body is a 400 and writes nothing", func(t *testing.T) {
			ct, body := multipartBody(t, valueP("title", "x"), fileP("manual", "m.pdf", pdfBytes))
			cut := body[:len(body)-30]
			a := do(t, "POST", w.base, w.alice, ct, bytes.NewReader(cut))
			if a.status != 400 {
				t.Errorf("got %d %s, want 400", a.status, a.body)
			}
			if keys := w.blobs(t); len(keys) != 0 {
				t.Errorf("got blobs %v, want none", keys)
			}
		})
		t.Run("a multipart body without its boundary is a 400 and writes nothing", func(t *testing.T) {
			a := do(t, "POST", w.base, w.alice, "multipart/form-data", strings.NewReader("--x\r\n\r\nno"))
			if a.status != 400 {
				t.Errorf("got %d %s, want 400", a.status, a.body)
			}
		})
		t.Run("a body that is not multipart under its boundary is a 400", func(t *testing.T) {
			a := do(t, "POST", w.base, w.alice, "multipart/form-data; boundary=abc", strings.NewReader("this is not a multipart body"))
			if a.status != 400 {
				t.Errorf("got %d %s, want 400", a.status, a.body)
			}
		})
		t.Run("a JSON create with a file field's value is a 400 naming it", func(t *testing.T) {
			a := do(t, "POST", w.base, w.alice, "application/json", strings.NewReader(`{"title":"x","photo":{"name":"a.png","key":"other-team/x/y/z"}}`))
			if a.status != 400 || !strings.Contains(string(a.body), `"photo"`) {
				t.Errorf("got %d %s, want 400 naming photo", a.status, a.body)
			}
			if keys := w.blobs(t); len(keys) != 0 {
				t.Errorf("got blobs %v, want none", keys)
			}
		})

		t.Run("hostile names are sanitized and never used as paths", func(t *testing.T) {
			long := strings.Repeat("é", 150) + ".pdf"
			names := map[string]string{
				"../../etc/passwd":         "passwd",
				"..\\..\\windows\\win.ini": "win.ini",
				"a\x00b.pdf":               "ab.pdf",
				"invoice\u202Efdp.exe":     "invoicefdp.exe",
				"tab\tand\nnewline.pdf":    "tabandnewline.pdf",
				"....":                     "file",
				"<script>.pdf":             "_script_.pdf",
				long:                       "",
			}
			for in, want := range names {
				a := w.send(t, "POST", w.base, w.alice, valueP("title", "names"), fileP("manual", in, pdfBytes))
				if a.status != 201 {
					t.Errorf("%q: got %d %s, want 201", in, a.status, a.body)
					continue
				}
				got := fileOf(t, a.json(t), "manual")["name"].(string)
				if want == "" {
					if len(got) > 100 || !strings.HasSuffix(got, ".pdf") {
						t.Errorf("a 300-byte name: got %q (%d bytes), want at most 100 bytes ending .pdf", got, len(got))
					}
					continue
				}
				if got != want {
					t.Errorf("%q: got %q, want %q", in, got, want)
				}
			}
			for _, k := range w.blobs(t) {
				if strings.Contains(k, "..") || strings.ContainsAny(k, "\x00\u202E\\") || len(strings.Split(k, "/")) != 4 {
					t.Errorf("key %q is not team/collection/record/name", k)
				}
			}
		})
		t.Run("an SVG in a file field is served as an attachment", func(t *testing.T) {
			w2 := w
			svg := []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
			a := w2.send(t, "POST", w2.base, w2.alice, valueP("title", "svg"), fileP("attachments", "x.svg", svg))
			if a.status != 201 {
				t.Fatalf("got %d %s", a.status, a.body)
			}
			f := filesOf(t, a.json(t), "attachments")[0]
			d := do(t, "GET", w2.app.Server.URL+f["url"].(string), "", "", nil)
			if cd := d.header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") || d.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("got Content-Disposition %q, nosniff %q; want attachment and nosniff", cd, d.header.Get("X-Content-Type-Options"))
			}
			if ct := d.header.Get("Content-Type"); strings.Contains(ct, "svg") || strings.Contains(ct, "html") {
				t.Errorf("got Content-Type %q, want the sniffed text type, never svg or html", ct)
			}
		})
	})
}
