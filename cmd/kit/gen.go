package main

import (
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/typegen"
)

// runGen implements the "kit gen" group.
func runGen(args []string, stdout, stderr io.Writer) int {
	return subcommand("gen", args, stdout, stderr, map[string]func([]string) int{
		"types": func(args []string) int { return runGenTypes(args, stdout, stderr) },
	})
}

// runGenTypes implements "kit gen types".
func runGenTypes(args []string, stdout, stderr io.Writer) int {
	fl := newCommandFlags("gen types", "--lang go|ts|vue [--schemas DIR] [--out FILE] [--package NAME]",
		"Write the types of the schemas folder's collections: per collection the record type\n"+
			"(Product), the input (ProductInput), the list query (ProductQuery) and the list answer\n"+
			"(ProductResponse). go: one Go file of structs (package --package); ts: one TypeScript\n"+
			"module of interfaces and the collections' keys and apiPaths; vue: ts plus the typed\n"+
			"composables of @collectionkit/vue (useShopProducts, useShopProductsItem,\n"+
			"useShopProductsMutation). Writes to stdout unless --out is given.")
	lang := fl.String("lang", "", "the language: go, ts or vue")
	dir := fl.String("schemas", "schemas", "schemas `folder`")
	out := fl.String("out", "", "write to `file` instead of stdout")
	pkg := fl.String("package", "", "the Go package `name` (--lang go; default kittypes)")
	if code, ok := fl.parseRequired(args, stdout, stderr, "lang"); !ok {
		return code
	}
	l := typegen.Lang(*lang)
	known := false
	for _, k := range typegen.Langs() {
		known = known || k == l
	}
	if !known {
		return fl.usageError(stderr, "unknown --lang %q (want go, ts or vue)", *lang)
	}
	if *pkg != "" && l != typegen.LangGo {
		return fl.usageError(stderr, "--package applies to --lang go only")
	}
	if *pkg != "" && (!token.IsIdentifier(*pkg) || token.IsKeyword(*pkg)) {
		return fl.usageError(stderr, "--package %q is not a Go package name", *pkg)
	}
	if fi, err := os.Stat(*dir); err != nil || !fi.IsDir() {
		return fl.usageError(stderr, "%s is not a folder; give the schemas folder with --schemas", *dir)
	}
	reg, _, err := collections.Load(os.DirFS(*dir), collections.LoadOptions{})
	var lerr *collections.LoadError
	if errors.As(err, &lerr) {
		for _, f := range lerr.Findings {
			if f.Severity == collections.SeverityError {
				fmt.Fprintln(stderr, f.String())
			}
		}
		fmt.Fprintf(stderr, "kit gen types: %s has schema errors (kit lint %s lists them all)\n", *dir, *dir)
		return exitFail
	}
	if err != nil {
		return fail(stderr, "gen types", err)
	}
	src, err := typegen.Generate(reg, l, typegen.Options{Package: *pkg, Source: filepath.ToSlash(*dir)})
	if err != nil {
		return fail(stderr, "gen types", err)
	}
	if *out == "" {
		if _, err := stdout.Write(src); err != nil {
			return fail(stderr, "gen types", err)
		}
		return exitOK
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		return fail(stderr, "gen types", err)
	}
	fmt.Fprintf(stderr, "kit gen types: wrote the %s types of %s to %s\n", l, plural(reg.Len(), "collection"), *out)
	return exitOK
}
