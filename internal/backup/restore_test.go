package backup_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/backup"
	"github.com/collectionkit/kit/internal/files"
)

// entry is one entry of a crafted archive.
type entry struct{ name, body string }

func archive(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o600, Size: int64(len(e.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const manifest = `{"format":"kit-backup","version":1,"engine":"sqlite","database":"kit.db"}`

// TestRestoreRefusesBadArchives: each bad archive is refused with its
// reason, the database is never put back, and no file is left in the
// target.
func TestRestoreRefusesBadArchives(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		archive []entry
		want    string
	}{
		{"no archive at all", nil, "not a kit backup archive"},
		{"a first entry that is no manifest", []entry{{"kit.db", "x"}}, "not a kit backup archive"},
		{"a manifest of another format", []entry{{"manifest.json", `{"format":"other","version":1}`}}, "not a kit backup archive"},
		{"a manifest of a later version", []entry{{"manifest.json", `{"format":"kit-backup","version":2,"database":"kit.db"}`}}, "version 2"},
		{"a manifest naming an unknown database entry", []entry{{"manifest.json", `{"format":"kit-backup","version":1,"database":"../x"}`}}, "unknown database entry"},
		{"no database entry", []entry{{"manifest.json", manifest}}, "lacks its database entry"},
		{"an entry outside files/", []entry{{"manifest.json", manifest}, {"kit.db", "db"}, {"files/a/b/ok.txt", "ok"}, {"etc/passwd", "x"}}, "unexpected entry"},
		{"a file key that climbs out", []entry{{"manifest.json", manifest}, {"kit.db", "db"}, {"files/a/b/ok.txt", "ok"}, {"files/../escape", "x"}}, "bad key"},
	}
	for _, tc := range tests {
		t.Run(tc.name+" is refused and writes nothing", func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "files")
			target := files.Dir{Root: root}
			restored := false
			_, err := backup.Restore(t.Context(), bytes.NewReader(archive(t, tc.archive...)), backup.Target{Files: target,
				RestoreDatabase: func(context.Context, backup.Manifest, string) error { restored = true; return nil }})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
			if restored {
				t.Error("got the database put back, want it left alone")
			}
			if empty, err := backup.Empty(t.Context(), target); err != nil || !empty {
				t.Errorf("got files left in the target (empty %v, %v), want none", empty, err)
			}
		})
	}
	t.Run("a failing database step removes the files put back", func(t *testing.T) {
		target := files.Dir{Root: filepath.Join(t.TempDir(), "files")}
		boom := errors.New("the disk is full")
		_, err := backup.Restore(t.Context(), bytes.NewReader(archive(t, entry{"manifest.json", manifest}, entry{"kit.db", "db"}, entry{"files/a/b/ok.txt", "ok"})),
			backup.Target{Files: target, RestoreDatabase: func(context.Context, backup.Manifest, string) error { return boom }})
		if !errors.Is(err, boom) {
			t.Fatalf("got %v, want the database step's error", err)
		}
		if empty, _ := backup.Empty(t.Context(), target); !empty {
			t.Error("got the restored file left behind, want it removed")
		}
	})
}
