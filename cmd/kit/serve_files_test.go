package main

import (
	"testing"
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
