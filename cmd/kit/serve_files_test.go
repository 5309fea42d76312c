package main

import (
	"testing"
	"time"

	"github.com/collectionkit/kit/kit"
)

func TestServeFilesFlagNamesADirectoryOrABucket(t *testing.T) {
	env := map[string]string{"KIT_FILES_ACCESS_KEY": "ak", "KIT_FILES_SECRET_KEY": "sk", "KIT_FILES_URL_SECRET": "shared"}
	getenv := func(k string) string { return env[k] }
	t.Run("a path is a local directory", func(t *testing.T) {
		fc := filesConfig("/var/lib/kit/files", getenv)
		if fc.Dir != "/var/lib/kit/files" || fc.S3URL != "" || string(fc.URLSecret) != "shared" {
			t.Errorf("got %+v, want the directory and the URL secret", fc)
		}
	})
	t.Run("an https URL is a bucket with the keys from the environment", func(t *testing.T) {
		fc := filesConfig("https://s3.example.com/bucket", getenv)
		if fc.S3URL != "https://s3.example.com/bucket" || fc.S3AccessKey != "ak" || fc.S3SecretKey != "sk" || fc.Dir != "" {
			t.Errorf("got %+v, want the bucket and its keys", fc)
		}
	})
	t.Run("no flag keeps the default directory beside the database", func(t *testing.T) {
		if fc := filesConfig("", getenv); fc.Dir != "" || fc.S3URL != "" {
			t.Errorf("got %+v, want the zero directory", fc)
		}
	})
}

func TestServeBackupsFlagNamesADirectoryOrABucket(t *testing.T) {
	env := map[string]string{"KIT_BACKUP_ACCESS_KEY": "bak", "KIT_BACKUP_SECRET_KEY": "bsk"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name string
		o    serveOptions
		want kit.BackupConfig
	}{
		{"a path is a local directory, daily by default", serveOptions{backups: "/var/backups/kit", every: 24 * time.Hour, keep: 7, db: "kit.db"},
			kit.BackupConfig{Dir: "/var/backups/kit", Interval: 24 * time.Hour, Keep: 7}},
		{"an s3 URL is a bucket with the keys from the environment", serveOptions{backups: "s3://s3.example.com/bucket/kit", every: time.Hour, keep: 3, db: "kit.db"},
			kit.BackupConfig{S3URL: "s3://s3.example.com/bucket/kit", S3AccessKey: "bak", S3SecretKey: "bsk", Interval: time.Hour, Keep: 3}},
		{"--backup-every 0 schedules none", serveOptions{backups: "b", every: 0, keep: 7, db: "kit.db"},
			kit.BackupConfig{Dir: "b", Interval: -1, Keep: 7}},
		{"on PostgreSQL pg_dump connects with --db", serveOptions{backups: "b", every: time.Hour, keep: 7, db: "postgres://u@h/db"},
			kit.BackupConfig{Dir: "b", Interval: time.Hour, Keep: 7, PgDumpURL: "postgres://u@h/db"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := backupConfig(tc.o, getenv); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
