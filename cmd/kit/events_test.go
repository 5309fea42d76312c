package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/kit"
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
	actor := kit.Actor{UserID: "u1", TeamID: "t1", Role: "owner"}
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
