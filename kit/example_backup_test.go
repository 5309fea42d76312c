package kit_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/collectionkit/kit/kit"
)

// A backup store in a folder: CreateBackup writes an archive of the
// database and the files there (as the schedule does every Interval),
// Backups lists them, OpenBackup reads one back.
func ExampleKit_CreateBackup() {
	dir, err := os.MkdirTemp("", "kit-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	k, err := kit.New(kit.Config{
		SQLitePath: filepath.Join(dir, "kit.db"),
		Logger:     slog.New(slog.DiscardHandler),
		// Interval -1: no schedule, backups on demand only.
		Backups: kit.BackupConfig{Dir: filepath.Join(dir, "backups"), Interval: -1},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()
	made, err := k.CreateBackup(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	list, _ := k.Backups(context.Background())
	fmt.Println(len(list), list[0].Name == made.Name, strings.HasSuffix(made.Name, ".tar"))
	archive, _, err := k.OpenBackup(context.Background(), made.Name)
	if err != nil {
		log.Fatal(err)
	}
	defer archive.Close()
	head := make([]byte, len("manifest.json"))
	_, _ = archive.Read(head)
	fmt.Println(string(head))
	// Output:
	// 1 true true
	// manifest.json
}
