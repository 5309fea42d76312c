package events_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/pgopen"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

// crashEnv names the database the crash writer writes to, as
// "sqlite:<file>" or "postgres:<schema>" (on the KIT_TEST_POSTGRES
// server); set only in the child process TestCrashConsistency starts.
const crashEnv = "EVENTS_CRASH_WRITER_DB"

// openCrashKit opens a kit on target (see crashEnv) and returns it with
// the func that closes it and its database.
func openCrashKit(target string) (*kit.Kit, func(), error) {
	engine, where, _ := strings.Cut(target, ":")
	cfg := kit.Config{Definitions: counterDefinitions(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	closeDB := func() {}
	switch engine {
	case string(testdb.EngineSQLite):
		cfg.SQLitePath = where
	case string(testdb.EnginePostgres):
		db, err := pgopen.Open(context.Background(), os.Getenv(testdb.EnvPostgres), pgopen.Options{SearchPath: where, MaxOpenConns: 8})
		if err != nil {
			return nil, nil, err
		}
		cfg.DB, closeDB = db, func() { db.Close() }
	default:
		return nil, nil, fmt.Errorf("crash target %q: want sqlite:<file> or postgres:<schema>", target)
	}
	k, err := kit.New(cfg)
	if err != nil {
		closeDB()
		return nil, nil, err
	}
	return k, func() { k.Close(); closeDB() }, nil
}

func counterDefinitions() []collections.Definition {
	return []collections.Definition{{Name: "counters", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString, Meta: collections.FieldMeta{Required: true}},
		{Name: "counter", Type: collections.TypeNumber},
	}}}
}

// TestCrashConsistency kills a process that is creating, updating and
// deleting records (SIGKILL, at a random moment) several times; after each
// restart every committed change has its event and every event its change.
// The writer is this test binary run again, on an SQLite file or on a
// PostgreSQL schema of its own (where the kill drops the writer's
// connections and the server rolls back what they had not committed).
func TestCrashConsistency(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		t.Skip("this is the crash writer's process")
	}
	if runtime.GOOS == "windows" || testing.Short() {
		t.Skip("needs SIGKILL and a few seconds")
	}
	testdb.Each(t, testCrashConsistency)
}

func testCrashConsistency(t *testing.T, e testdb.Engine) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "crash.db")
	if e == testdb.EnginePostgres {
		db = "postgres:" + testdb.NewSchema(t, testdb.PostgresDSN(t))
	}
	k, closeKit, err := openCrashKit(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	team, _ := k.Accounts().CreateTeam(ctx, teamauth.Team{Name: "Acme", Slug: "acme"})
	user, _ := k.Accounts().CreateUser(ctx, teamauth.User{Name: "Writer"})
	if _, err := k.Accounts().AddMember(ctx, team.ID, user.ID, teamauth.RoleOwner); err != nil {
		t.Fatal(err)
	}
	closeKit()

	const runs = 5
	for run := 1; run <= runs; run++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+db, "EVENTS_CRASH_TEAM="+team.ID, "EVENTS_CRASH_USER="+user.ID,
			"EVENTS_CRASH_RUN="+strconv.Itoa(run))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if sc.Text() == "writing" {
					close(ready)
					break
				}
			}
			for sc.Scan() {
			}
		}()
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("run %d: the writer never started writing", run)
		}
		time.Sleep(time.Duration(50+rand.IntN(250)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()

		records, evs := checkCrashInvariants(t, db)
		t.Logf("run %d: killed; after restart %d records and %d events agree", run, records, evs)
		if records == 0 || evs == 0 {
			t.Errorf("run %d: got %d records and %d events, want the writer to have written some", run, records, evs)
		}
	}
}

// checkCrashInvariants reopens the database and compares records with
// events. It returns how many of each there are.
func checkCrashInvariants(t *testing.T, db string) (int, int) {
	t.Helper()
	k, closeKit, err := openCrashKit(db)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer closeKit()
	if _, err := events.Install(t.Context(), k, events.Config{}); err != nil {
		t.Fatalf("restart: %v", err)
	}
	ctx := context.Background()
	// One snapshot for both reads: on PostgreSQL a COMMIT the killed
	// writer had sent may still be landing.
	tx, err := k.DB().BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	counters := map[string]int{}
	rows, err := tx.QueryContext(ctx, "SELECT id, counter FROM app_counters")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var c float64
		if err := rows.Scan(&id, &c); err != nil {
			t.Fatal(err)
		}
		counters[id] = int(c)
	}
	rows.Close()

	type history struct{ creates, updates, deletes, lastValue int }
	hist := map[string]*history{}
	rows, err = tx.QueryContext(ctx, `SELECT item_id, operation, changes FROM kit_events ORDER BY "timestamp", id`)
	if err != nil {
		t.Fatal(err)
	}
	nEvents := 0
	for rows.Next() {
		var item, op, changes string
		if err := rows.Scan(&item, &op, &changes); err != nil {
			t.Fatal(err)
		}
		nEvents++
		h := hist[item]
		if h == nil {
			h = &history{}
			hist[item] = h
		}
		switch op {
		case "create":
			h.creates++
		case "update":
			h.updates++
			var triples [][3]*string
			if err := json.Unmarshal([]byte(changes), &triples); err != nil || len(triples) != 1 || *triples[0][0] != "counter" {
				t.Errorf("update of %s: got changes %s, want one counter change", item, changes)
				continue
			}
			h.lastValue, _ = strconv.Atoi(*triples[0][2])
		case "delete":
			h.deletes++
		}
	}
	rows.Close()

	for id, c := range counters {
		h := hist[id]
		switch {
		case h == nil:
			t.Errorf("record %s (counter %d) has no event", id, c)
		case h.creates != 1 || h.deletes != 0:
			t.Errorf("record %s: got %d create and %d delete events, want 1 and 0", id, h.creates, h.deletes)
		case h.updates != c || (c > 0 && h.lastValue != c):
			t.Errorf("record %s: counter %d, but %d update events ending at %d", id, c, h.updates, h.lastValue)
		}
	}
	for id, h := range hist {
		if _, exists := counters[id]; !exists && (h.deletes != 1 || h.creates != 1) {
			t.Errorf("item %s has events (%d create, %d delete) but no record", id, h.creates, h.deletes)
		}
	}
	return len(counters), nEvents
}

// TestCrashWriter is the child process of TestCrashConsistency: it creates,
// updates and deletes records from several goroutines until it is killed.
func TestCrashWriter(t *testing.T) {
	db := os.Getenv(crashEnv)
	if db == "" {
		t.Skip("run by TestCrashConsistency only")
	}
	k, _, err := openCrashKit(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := events.Install(t.Context(), k, events.Config{}); err != nil {
		t.Fatal(err)
	}
	actor := kit.Actor{TeamID: os.Getenv("EVENTS_CRASH_TEAM"), UserID: os.Getenv("EVENTS_CRASH_USER"), Role: teamauth.RoleOwner}
	ctx := teamauth.WithUser(context.Background(), &teamauth.User{ID: actor.UserID, Name: "Writer"})
	recs := k.Records("appCounters")
	var once sync.Once
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := map[string]int{}
			deadline := time.Now().Add(30 * time.Second)
			for i := 0; time.Now().Before(deadline); i++ {
				switch {
				case len(mine) < 5 || i%7 == 0:
					rec, err := recs.Create(ctx, actor, map[string]any{"title": fmt.Sprintf("run %s g%d #%d", os.Getenv("EVENTS_CRASH_RUN"), g, i), "counter": 0})
					if err != nil {
						panic(err)
					}
					mine[rec["id"].(string)] = 0
				case i%11 == 0:
					for id := range mine {
						if err := recs.Delete(ctx, actor, id); err != nil {
							panic(err)
						}
						delete(mine, id)
						break
					}
				default:
					for id, c := range mine {
						if _, err := recs.Update(ctx, actor, id, map[string]any{"counter": c + 1}); err != nil {
							panic(err)
						}
						mine[id] = c + 1
						break
					}
				}
				once.Do(func() { fmt.Println("writing") })
			}
		}()
	}
	wg.Wait()
}
