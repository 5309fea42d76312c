// Package admin serves kit's admin app: a Vue single-page app, built from
// web/admin and embedded in the Go module (admin/dist), so a host gets it
// with go get and needs no Node.js.
//
// # Mounting
//
// [Handler] serves the app of one [kit.Kit] under any prefix. Mount it with
// [http.StripPrefix] next to the Kit's API, on the same origin (the app
// signs in with kit's session cookie and calls the API at the Kit's
// prefix):
//
//	mux := http.NewServeMux()
//	mux.Handle("/api/", k.Handler())
//	mux.Handle("/admin/", http.StripPrefix("/admin", admin.Handler(k)))
//
// The handler finds where it is mounted from the request (the part of the
// request URI that StripPrefix removed), so the same build works at
// /admin/, /ops/kit/ or the root.
//
// # What it serves
//
//   - the hashed files under assets/ with "Cache-Control: public,
//     max-age=31536000, immutable" (their names change with their content);
//   - any other file of the build with "Cache-Control: no-cache";
//   - index.html for every other path (the app routes in the browser), with
//     its <base href> set to the mount point and the Kit's API prefix in a
//     meta tag, "Cache-Control: no-cache";
//   - text files of 1 KB or more (scripts, styles, SVG) gzipped, with
//     "Vary: Accept-Encoding", when the request's Accept-Encoding takes gzip;
//   - 404 for a missing file under assets/, and 405 for methods other than
//     GET and HEAD.
//
// The app speaks English and German (the browser's language, or the one the
// user picks; see docs/admin.md).
//
// The app itself needs no route of its own: it uses the accounts routes
// (POST /auth/login, GET /me), the registry (GET /kit/collections) and the
// collection, tree and event routes.
package admin
