package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

func TestEventsCleanupDeletesPastRetentionAndADryRunDeletesNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "kit.db")
	k, err := kit.New(kit.Config{SQLitePath: db, Definitions: []collections.Definition{
		{Name: "notes", Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := events.Install(t.Context(), k, events.Config{}); err != nil {
		t.Fatal(err)
	}
	team, err := k.Accounts().CreateTeam(t.Context(), teamauth.Team{Name: "Acme", Slug: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	user, err := k.Accounts().CreateUser(t.Context(), teamauth.User{Name: "Ann", Email: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	actor := kit.Actor{UserID: user.ID, TeamID: team.ID, Role: "owner"}
	for range 5 {
		if _, err := k.Records("appNotes").Create(t.Context(), actor, map[string]any{"body": "x"}); err != nil {
			t.Fatal(err)
		}
	}
	k.Close()

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a dry run reports what a run would delete", []string{"events", "cleanup", "--dry-run", "--max-events", "2", "--db", db}, "dry run: would delete 3 events; 2 would remain"},
		{"a run deletes down to the maximum", []string{"events", "cleanup", "--max-events", "2", "--db", db}, "deleted 3 events; 2 remain"},
		{"a second run has nothing left to delete", []string{"events", "cleanup", "--max-events", "2", "--db=" + db}, "deleted 0 events; 2 remain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runKit(t, tt.args...)
			if code != 0 || !strings.HasPrefix(stdout, tt.want) {
				t.Errorf("got exit %d, stdout %q (stderr %q), want 0 and %q", code, stdout, stderr, tt.want)
			}
		})
	}
	if code, _, _ := runKit(t, "events", "cleanup", "--db"); code != exitUsage {
		t.Errorf("--db without a value: got exit %d, want %d", code, exitUsage)
	}
	if code, stdout, stderr := runKit(t, "events", "cleanup", "-h"); code != 0 || !strings.Contains(stdout+stderr, "-dry-run") {
		t.Errorf("-h: got exit %d, output %q, want 0 and the flags", code, stdout+stderr)
	}
}

// cleanupTracker installs the events add-on on a fresh in-memory database
// holding ten events aged 100, 99, 98, 97, 5, 4, 4, 2 and 1 days and one
// hour.
func cleanupTracker(t *testing.T) *events.Tracker {
	t.Helper()
	path := ":memory:" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	k, err := kit.Open(t.Context(), kit.Config{SQLitePath: path, Definitions: []collections.Definition{
		{Name: "notes", Fields: []collections.Field{{Name: "body", Type: collections.TypeText}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	tr, err := events.Install(t.Context(), k, events.Config{ErrorHandling: events.ErrorHandling{NoConsoleLog: true}})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 10)
	for i := range ids {
		ids[i] = fmt.Sprintf("item-%d", i)
	}
	evs, err := tr.Track(t.Context(), "t1", "u1", events.TrackOptions{Operation: "delete", Collection: "appNotes", ItemIDs: ids})
	if err != nil || len(evs) != 10 {
		t.Fatalf("seed: got %d events, %v; want 10", len(evs), err)
	}
	now := time.Now().UTC()
	day := 24 * time.Hour
	for i, age := range []time.Duration{100 * day, 99 * day, 98 * day, 97 * day, 5 * day, 4 * day, 4 * day, 2 * day, day, time.Hour} {
		if _, err := k.DB().ExecContext(t.Context(), `UPDATE kit_events SET "timestamp" = ? WHERE id = ?`, now.Add(-age), evs[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func TestEventsCommandLine(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
		left   int
	}{
		{"a dry run prints what a run would delete and deletes nothing", []string{"cleanup", "--dry-run"}, 0, "dry run: would delete 4 events; 6 would remain, the oldest from ", "", 10},
		{"a run deletes with the configured retention", []string{"cleanup"}, 0, "deleted 4 events; 6 remain, the oldest from ", "", 6},
		{"flags override the configured retention", []string{"cleanup", "--max-events", "3"}, 0, "deleted 7 events; 3 remain", "", 3},
		{"--retention-days 0 deletes everything", []string{"cleanup", "--retention-days=0"}, 0, "deleted 10 events; 0 remain\n", "", 0},
		{"help prints the group's usage", []string{"help"}, 0, "Usage: kit events cleanup [flags]", "", 10},
		{"cleanup -h prints its usage and flags", []string{"cleanup", "-h"}, 0, "Usage: kit events cleanup [--dry-run] [--retention-days N] [--max-events N] [--db PATH]", "", 10},
		{"no command is a usage error", nil, exitUsage, "", "Usage:", 10},
		{"an unknown command is a usage error", []string{"purge"}, exitUsage, "", "Usage:", 10},
		{"an unknown flag is a usage error", []string{"cleanup", "--force"}, exitUsage, "", "-force", 10},
		{"an extra argument is a usage error", []string{"cleanup", "now"}, exitUsage, "", `unexpected argument "now"`, 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := cleanupTracker(t)
			var stdout, stderr strings.Builder
			code := runEventsCommand(t.Context(), tr, tc.args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit status: got %d, want %d (stderr %s)", code, tc.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) || (tc.stdout == "" && stdout.Len() > 0) {
				t.Errorf("stdout: got %q, want %q", stdout.String(), tc.stdout)
			}
			if !strings.Contains(stderr.String(), tc.stderr) || (tc.stderr == "" && stderr.Len() > 0) {
				t.Errorf("stderr: got %q, want %q", stderr.String(), tc.stderr)
			}
			res, err := tr.CleanupOldEvents(t.Context(), events.CleanupOptions{DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.TotalRemaining + res.DeletedCount; got != tc.left {
				t.Errorf("events left: got %d, want %d", got, tc.left)
			}
		})
	}
}
