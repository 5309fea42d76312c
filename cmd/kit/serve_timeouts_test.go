package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testkit"
)

// startDemoWithTimeouts runs "kit serve --demo" in-process with the
// timeouts t on a fresh database in dir and returns the API URL and
// Alice's token.
func startDemoWithTimeouts(t *testing.T, dir string, timeouts serveTimeouts) (apiURL, token string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	var stderr testkit.Buffer
	done := make(chan int, 1)
	go func() {
		done <- serveWith(ctx, []string{"--demo", "--db", filepath.Join(dir, "kit.db"), "--addr", "127.0.0.1:0"}, pw, &stderr, timeouts)
		pw.Close()
	}()
	var once sync.Once
	t.Cleanup(func() {
		once.Do(func() {
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("got exit status %d, want 0 (stderr %q)", code, stderr.String())
			}
		})
	})
	apiURL, printed := waitForServing(t, pr)
	for _, line := range printed {
		if tok, ok := strings.CutPrefix(strings.TrimSpace(line), "token: "); ok {
			return apiURL, tok
		}
	}
	t.Fatalf("got no token line; stdout:\n%s", strings.Join(printed, "\n"))
	return "", ""
}

// uploadManual sends a product with a manual of chunks pieces of 64 KiB,
// each written by write (given the part's writer and the piece), as
// multipart; it returns the answer's status and body, or the error the
// client saw.
func uploadManual(t *testing.T, apiURL, token, title string, chunks int, write func(w io.Writer, piece []byte) error) (int, map[string]any, error) {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := func() error {
			if err := mw.WriteField("title", title); err != nil {
				return err
			}
			if err := mw.WriteField("price", "1.00"); err != nil {
				return err
			}
			part, err := mw.CreateFormFile("manual", "manual.txt")
			if err != nil {
				return err
			}
			piece := []byte(strings.Repeat("manual text ", 64<<10/12+1))[:64<<10]
			for range chunks {
				if err := write(part, piece); err != nil {
					return err
				}
			}
			return mw.Close()
		}()
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, apiURL+"/teams/acme/shop-products", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	// The client's own bound: far beyond the server's, so that only the
	// server's deadlines end a stalled upload within it.
	client := &http.Client{Timeout: 60 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body, nil
}

// countFiles counts the regular files under dir.
func countFiles(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

func TestServeBoundsUploadsByIdlenessNotByLength(t *testing.T) {
	// Short timeouts, so that the test need not wait kit serve's 30 s: a
	// body may pause up to 400 ms, and the answer has 400 ms from the last
	// bytes of the body. The steady upload takes three times as long as
	// either, in pauses of a quarter of the idle bound.
	timeouts := serveTimeouts{readHeader: 5 * time.Second, bodyIdle: 400 * time.Millisecond, write: 400 * time.Millisecond, idle: time.Minute}
	dir := t.TempDir()
	apiURL, token := startDemoWithTimeouts(t, dir, timeouts)
	files := filepath.Join(dir, "kit-files")

	t.Run("a slow but steady upload that lasts longer than every timeout is stored whole", func(t *testing.T) {
		const chunks = 12
		started := time.Now()
		status, body, err := uploadManual(t, apiURL, token, "Steady upload", chunks, func(w io.Writer, piece []byte) error {
			time.Sleep(timeouts.bodyIdle / 4)
			_, err := w.Write(piece)
			return err
		})
		if err != nil {
			t.Fatalf("got the error %v, want the record stored", err)
		}
		if status != http.StatusCreated {
			t.Fatalf("got %d %v, want 201", status, body)
		}
		manual, _ := body["manual"].(map[string]any)
		if got, want := manual["size"], float64(chunks*64<<10); got != want {
			t.Errorf("got a stored manual of %v bytes, want %v", got, want)
		}
		// Not a timing assertion: the precondition that makes this test
		// mean something (a whole-body deadline of either length would
		// have cut this upload).
		if took := time.Since(started); took < 2*timeouts.bodyIdle {
			t.Fatalf("the upload took %v, want it longer than the timeouts for the test to prove anything", took)
		}
	})

	t.Run("a client that stops sending in the middle of its body is cut off, and nothing is stored", func(t *testing.T) {
		before := countFiles(files)
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		_ = mw.WriteField("title", "Stalled upload")
		_ = mw.WriteField("price", "1.00")
		part, _ := mw.CreateFormFile("manual", "manual.txt")
		_, _ = part.Write(bytes.Repeat([]byte("manual text\n"), 40000))
		_ = mw.Close()
		// A raw connection: the headers promise the whole body, half of it
		// is sent, then nothing, while the connection stays open.
		u, _ := url.Parse(apiURL)
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST %s/teams/acme/shop-products HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
			u.Path, u.Host, token, mw.FormDataContentType(), body.Len())
		if _, err := conn.Write(body.Bytes()[:body.Len()/2]); err != nil {
			t.Fatal(err)
		}
		// The client's own bound, far beyond the server's: only the
		// server's deadline ends the stalled upload within it.
		_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			t.Fatalf("got no answer and an open connection after 60 s, want the stalled upload cut off")
		case err != nil:
			// The server closed the connection: cut off.
		case res.StatusCode != http.StatusBadRequest:
			raw, _ := io.ReadAll(res.Body)
			t.Errorf("got %d %s, want 400 (a truncated body) or the connection closed", res.StatusCode, raw)
		}
		st, list := getJSON(t, apiURL+"/teams/acme/shop-products?search=Stalled", token)
		if items, _ := list["items"].([]any); st != http.StatusOK || len(items) != 0 {
			t.Errorf("got %d and %d records titled Stalled upload, want 200 and none", st, len(items))
		}
		if after := countFiles(files); after != before {
			t.Errorf("got %d files in the store after the stalled upload, had %d", after, before)
		}
	})
}

// TestBodyDeadlinesLeaveRequestsWithoutABodyAlone: a GET that takes longer
// than the body idle bound (a change stream, a large download) is not cut.
func TestBodyDeadlinesLeaveRequestsWithoutABodyAlone(t *testing.T) {
	timeouts := serveTimeouts{readHeader: 5 * time.Second, bodyIdle: 100 * time.Millisecond, write: 10 * time.Second, idle: time.Minute}
	release := make(chan struct{})
	srv := timeouts.server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
			fmt.Fprint(w, "done")
		case <-r.Context().Done():
		}
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	go func() {
		time.Sleep(5 * timeouts.bodyIdle)
		close(release)
	}()
	res, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatalf("got %v, want the answer", err)
	}
	defer res.Body.Close()
	if b, _ := io.ReadAll(res.Body); string(b) != "done" {
		t.Errorf("got %q, want done: the request was cut", b)
	}
}
