// Package backup writes and reads kit's backup archives: one tar file
// holding manifest.json, the database copy (kit.db, a SQLite file, or
// kit.dump, pg_dump's custom format) and the blobs of file fields under
// files/, in that order. It knows files.Bucket and callbacks for the
// database, nothing of records or HTTP; kit and the kit command decide
// where an archive goes and how the database is copied and put back
// (docs/operations.md, "Backups and restore").
package backup
