package main

import (
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/internal/testkit"
)

// withSearchPath points a PostgreSQL URL at one schema.
func withSearchPath(dsn, schema string) string {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema
}

// dbFor returns a --db value for a database private to t on engine e.
func dbFor(t *testing.T, e testdb.Engine) string {
	if e == testdb.EnginePostgres {
		dsn := testdb.PostgresDSN(t)
		return withSearchPath(dsn, testdb.NewSchema(t, dsn))
	}
	return filepath.Join(t.TempDir(), "kit.db")
}

func TestAccountCommandsWorkOnEveryEngine(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		db := dbFor(t, e)
		code, teamID, stderr := runKit(t, "team", "create", "--name", "Acme", "--db", db)
		if code != 0 {
			t.Fatalf("team create: got exit %d (%s), want 0", code, stderr)
		}
		code, userID, stderr := runKit(t, "user", "create", "--name", "Alice", "--db", db)
		if code != 0 {
			t.Fatalf("user create: got exit %d (%s), want 0", code, stderr)
		}
		if code, _, stderr := runKit(t, "member", "add", "--team", "acme", "--user", strings.TrimSpace(userID), "--role", "owner", "--db", db); code != 0 {
			t.Fatalf("member add: got exit %d (%s), want 0", code, stderr)
		}
		code, token, stderr := runKit(t, "token", "create", "--user", strings.TrimSpace(userID), "--db", db)
		if code != 0 || !strings.HasPrefix(token, "kit_") {
			t.Fatalf("token create: got exit %d, %q (%s), want 0 and a token", code, token, stderr)
		}
		if strings.TrimSpace(teamID) == "" {
			t.Errorf("team create: got no id on stdout")
		}
	})
}

// TestTwoServeProcessesStartTogetherOnOneEmptyDatabase starts two kit serve
// processes at the same moment on the same empty database: both must reach
// "serving" (kit's own tables are created under the migration lock, the
// collection tables under the schema-sync lock) and stop cleanly.
func TestTwoServeProcessesStartTogetherOnOneEmptyDatabase(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH, so the kit binary cannot be built")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the test stops kit with SIGINT, which Windows processes cannot be sent")
	}
	root := moduleRoot(t)
	bin := buildKit(t, goBin, root)
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		db := dbFor(t, e)
		procs := make([]*exec.Cmd, 2)
		outs := make([]*io.PipeReader, 2)
		errs := make([]*testkit.Buffer, 2)
		exited := make([]chan error, 2)
		for i := range procs {
			cmd := exec.Command(bin, "serve", "--schemas", filepath.Join(root, "examples", "schemas"), "--addr", "127.0.0.1:0", "--db", db)
			r, w := io.Pipe()
			errs[i] = &testkit.Buffer{}
			cmd.Stdout, cmd.Stderr = w, errs[i]
			procs[i], outs[i], exited[i] = cmd, r, make(chan error, 1)
		}
		var start sync.WaitGroup
		start.Add(1)
		var started sync.WaitGroup
		for i, cmd := range procs {
			started.Add(1)
			go func() {
				defer started.Done()
				start.Wait()
				if err := cmd.Start(); err != nil {
					exited[i] <- err
					return
				}
				go func() {
					exited[i] <- cmd.Wait()
					cmd.Stdout.(*io.PipeWriter).Close()
				}()
			}()
		}
		start.Done()
		started.Wait()
		t.Cleanup(func() {
			for i, cmd := range procs {
				if cmd.Process != nil {
					cmd.Process.Kill()
				}
				if t.Failed() {
					t.Logf("process %d stderr:\n%s", i, errs[i].String())
				}
			}
		})
		for i := range procs {
			apiURL, _ := waitForServing(t, outs[i])
			if !strings.HasPrefix(apiURL, "http://127.0.0.1:") {
				t.Errorf("process %d: got serving address %q", i, apiURL)
			}
			go io.Copy(io.Discard, outs[i])
		}
		for i, cmd := range procs {
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited[i]:
				if err != nil {
					t.Errorf("process %d: got exit %v, want 0; stderr:\n%s", i, err, errs[i].String())
				}
			case <-time.After(15 * time.Second):
				t.Errorf("process %d: did not stop within 15 s of SIGINT", i)
			}
		}
	})
}
