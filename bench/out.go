package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// sectionMarkers returns the comment lines that fence the generated part
// of a page for one section: an engine ("sqlite" or "postgres"), with
// " shared-cores" appended for a run whose generator and servers share
// the cores (--pin none).
func sectionMarkers(section string) (begin, end []byte) {
	return []byte("<!-- go run ./bench: " + section + " tables begin -->"),
		[]byte("<!-- go run ./bench: " + section + " tables end -->")
}

// writeOut writes report to path. A file that holds the section's two
// markers (sectionMarkers) keeps everything outside them and has the text
// between them replaced, so a page of hand-written prose, such as
// docs/benchmarks.md, carries the tables of the last run of each engine;
// any other file, or none, is written whole. A file with only one of the
// markers, or with them out of order, is an error and stays as it was.
func writeOut(path, section string, report []byte) error {
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return os.WriteFile(path, report, 0o644)
	}
	if err != nil {
		return err
	}
	begin, end := sectionMarkers(section)
	b, e := bytes.Index(old, begin), bytes.Index(old, end)
	switch {
	case b < 0 && e < 0:
		return os.WriteFile(path, report, 0o644)
	case b < 0 || e < 0 || e < b:
		return fmt.Errorf("%s: the markers %q and %q must both be there, in that order", path, begin, end)
	}
	var out bytes.Buffer
	out.Write(old[:b+len(begin)])
	out.WriteString("\n\n")
	out.Write(bytes.TrimSpace(report))
	out.WriteString("\n\n")
	out.Write(old[e:])
	return os.WriteFile(path, out.Bytes(), 0o644)
}
