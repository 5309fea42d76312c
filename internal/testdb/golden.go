package testdb

import (
	"os"
	"path/filepath"
	"testing"
)

// CheckGolden compares got with the golden file at path, or, with update,
// writes got there instead. what names the content in a failure ("schema
// sync DDL"), and rerun the command that rewrites the file.
func CheckGolden(t testing.TB, path, got string, update bool, what, rerun string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the golden file (%s writes it): %v", rerun, err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (%s, then review the diff):\ngot:\n%s\nwant:\n%s", what, path, rerun, got, want)
	}
}
