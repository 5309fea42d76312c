package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/collectionkit/kit/collections"
)

// runLint implements "kit lint [DIR]".
func runLint(args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("lint", "[DIR]",
		"Check the schemas folder DIR (default ./schemas) the way kit serve loads it, and print\n"+
			"every error and warning to stdout, one per line, as \"file: collection.field: message\",\n"+
			"sorted by file, collection and field. The exit status is 1 when there is an error,\n"+
			"0 when there are only warnings or nothing at all.")
	if code, ok := fl.parse(args, 1, stdout, stderr); !ok {
		return code
	}
	dir := "schemas"
	if fl.NArg() == 1 {
		dir = fl.Arg(0)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fl.usageError(stderr, "%s is not a folder; give the schemas folder to check", dir)
	}

	reg, findings, err := collections.Load(os.DirFS(dir), collections.LoadOptions{})
	var lerr *collections.LoadError
	switch {
	case errors.As(err, &lerr):
		findings = append(findings, lerr.Findings...)
	case err != nil:
		return fail(stderr, "lint", err)
	}
	slices.SortStableFunc(findings, func(a, b collections.Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Collection, b.Collection), cmp.Compare(a.Field, b.Field))
	})
	errs := 0
	for _, f := range findings {
		fmt.Fprintln(stdout, f.String())
		if f.Severity == collections.SeverityError {
			errs++
		}
	}
	warnings := len(findings) - errs
	if errs > 0 {
		fmt.Fprintf(stderr, "kit lint: %s: %s, %s\n", dir, plural(errs, "error"), plural(warnings, "warning"))
		return exitFail
	}
	fmt.Fprintf(stderr, "kit lint: %s: %s ok, %s\n", dir, plural(reg.Len(), "collection"), plural(warnings, "warning"))
	return exitOK
}

// plural formats n and noun, adding an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
