package kit_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/files"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// crashDefs is the collection the crash test uploads to.
func crashDefs() []collections.Definition {
	return []collections.Definition{{Name: "scans", Layer: "app", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString},
		{Name: "pages", Type: collections.TypeFile, Meta: collections.FieldMeta{Multiple: true, MaxSize: 4 << 20}},
	}}}
}

// TestFilesCrashChild is the server the crash test kills: it runs only
// when KIT_FILES_CRASH_CHILD names a directory, serving a Kit on its
// SQLite file and files directory until it is killed.
func TestFilesCrashChild(t *testing.T) {
	dir := os.Getenv("KIT_FILES_CRASH_CHILD")
	if dir == "" {
		t.Skip("the crash test's child process (runs under TestFilesSurviveSIGKILL)")
	}
	k, err := kit.Open(context.Background(), kit.Config{SQLitePath: filepath.Join(dir, "kit.db"), Definitions: crashDefs(),
		Files: kit.FilesConfig{SweepInterval: -1}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ADDR http://%s\n", ln.Addr())
	_ = http.Serve(ln, k.Handler())
}

// slowBody is size bytes that arrive in 32 KiB pieces with pauses, so
// that a kill lands while uploads are in flight.
type slowBody struct{ left int }

func (s *slowBody) Read(p []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), 32<<10, s.left)
	for i := range p[:n] {
		p[i] = byte(i)
	}
	s.left -= n
	time.Sleep(time.Millisecond)
	return n, nil
}

// TestFilesSurviveSIGKILL kills the server with SIGKILL during concurrent
// uploads, ten times, then checks that every record's files are readable
// (a blob is written before its record commits) and that the sweep
// removes the blobs the kills left without a record, and only those.
func TestFilesSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the crash test starts and kills a server ten times")
	}
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	setup, err := kit.Open(ctx, kit.Config{SQLitePath: filepath.Join(dir, "kit.db"), Definitions: crashDefs(), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	team, err := setup.Accounts().CreateTeam(ctx, teamauth.Team{Name: "acme", Slug: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	user, err := setup.Accounts().CreateUser(ctx, teamauth.User{Name: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Accounts().AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner); err != nil {
		t.Fatal(err)
	}
	token, _, err := setup.Accounts().CreateToken(ctx, user.ID, "crash")
	if err != nil {
		t.Fatal(err)
	}
	setup.Close()

	created := 0
	for round := range 10 {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestFilesCrashChild$", "-test.v")
		cmd.Env = append(os.Environ(), "KIT_FILES_CRASH_CHILD="+dir)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		addr := ""
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "ADDR "); ok {
				addr = a
				break
			}
		}
		go func() { _, _ = io.Copy(io.Discard, out) }()
		if addr == "" {
			_ = cmd.Process.Kill()
			t.Fatalf("round %d: the child printed no address", round)
		}
		base := addr + "/api/teams/" + team.ID + "/app-scans"
		var wg sync.WaitGroup
		var mu sync.Mutex
		for g := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					if err := crashUpload(base, token, fmt.Sprintf("r%d-g%d-%d", round, g, i)); err != nil {
						return // the server is gone
					}
					mu.Lock()
					created++
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(150+rand.IntN(350)) * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		wg.Wait()
	}

	k, err := kit.Open(ctx, kit.Config{SQLitePath: filepath.Join(dir, "kit.db"), Definitions: crashDefs(), Logger: quietLogger(),
		Files: kit.FilesConfig{SweepInterval: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	bucket := files.Dir{Root: filepath.Join(dir, "kit-files")}
	actor := kit.Actor{UserID: user.ID, TeamID: team.ID, Role: teamauth.RoleOwner}
	referenced := map[string]bool{}
	records := 0
	for page := 1; ; page++ {
		l, err := k.Records("appScans").List(ctx, actor, map[string][]string{"page": {fmt.Sprint(page)}, "pageSize": {"100"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range l.Items {
			records++
			for _, f := range kit.FilesOf(rec, "pages") {
				referenced[f.Key] = true
				b, err := bucket.Open(ctx, f.Key)
				if err != nil {
					t.Errorf("record %s: file %s: %v, want it readable", rec["id"], f.Name, err)
					continue
				}
				if n, _ := io.Copy(io.Discard, b); n != f.Size {
					t.Errorf("record %s: file %s: read %d bytes, want %d", rec["id"], f.Name, n, f.Size)
				}
				b.Close()
			}
		}
		if len(l.Items) < 100 {
			break
		}
	}
	if records == 0 || records < created {
		t.Fatalf("got %d records, want at least the %d whose creates were answered", records, created)
	}
	removed, err := k.SweepFiles(ctx, -time.Second)
	if err != nil {
		t.Fatal(err)
	}
	left := 0
	err = bucket.Walk(ctx, "", func(i files.Info) error {
		left++
		if !referenced[i.Key] {
			t.Errorf("blob %s is left and no record refers to it", i.Key)
		}
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if left != len(referenced) {
		t.Errorf("got %d blobs after the sweep, want the %d records refer to", left, len(referenced))
	}
	t.Logf("10 kills: %d records (%d creates answered), %d files, %d orphans swept", records, created, len(referenced), removed)
}

// crashUpload creates a record with two slow 256 KiB files.
func crashUpload(base, token, title string) error {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := mw.WriteField("title", title)
		for i := 0; err == nil && i < 2; i++ {
			var part io.Writer
			if part, err = mw.CreateFormFile("pages", fmt.Sprintf("page-%d.bin", i)); err == nil {
				_, err = io.Copy(part, &slowBody{left: 256 << 10})
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequest("POST", base, pr)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		pr.Close()
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}
