// Kit serves collections defined in JSON schema files as a team-scoped
// HTTP API, checks schema folders, and manages teams, users, memberships,
// passwords, sessions and API tokens.
//
// Usage:
//
//	kit serve [--schemas DIR] [--db PATH] [--addr HOST:PORT] [--prefix /api] [--demo] [--no-events] [--no-admin] [--cors-origin ORIGIN]
//	kit lint [DIR]
//	kit openapi [--schemas DIR] [--prefix /api] [--demo] [--no-events]
//	kit gen types --lang go|ts|vue [--schemas DIR] [--out FILE] [--package NAME]
//	kit team create --name NAME [--slug SLUG] [--db PATH]
//	kit team list [--db PATH]
//	kit user create --name NAME [--email EMAIL] [--role admin] [--db PATH]
//	kit user list [--db PATH]
//	kit member add --team ID_OR_SLUG --user ID --role owner|admin|member [--db PATH]
//	kit token create --user ID [--name NAME] [--db PATH]
//	kit token revoke --id TOKEN_ID [--db PATH]
//	kit member remove --team ID_OR_SLUG --user ID [--db PATH]
//	kit member role --team ID_OR_SLUG --user ID --role owner|admin|member [--db PATH]
//	kit user ban|unban --user ID [--db PATH]
//	kit user passwd --user ID [--db PATH] < password
//	kit user sessions revoke --user ID [--db PATH]
//	kit team rename --team ID_OR_SLUG [--name NAME] [--slug SLUG] [--db PATH]
//	kit events cleanup [--dry-run] [--retention-days N] [--max-events N] [--db PATH]
//	kit help [COMMAND]
//
// --db is a SQLite file (default ./kit.db) or a postgres:// URL. Install with
//
//	go install github.com/collectionkit/kit/cmd/kit@latest
//
// # Trying it
//
// From any directory:
//
//	kit serve --demo
//
// seeds two teams (acme and globex), four users and a few records, prints
// a fresh API token, a curl line and a sign-in line (a fresh password) for
// each user and a curl line for acme's audit events, and serves the demo
// schemas built into kit (a copy of examples/schemas) on
// http://127.0.0.1:8080/api until Ctrl-C. Running it again reuses the data
// and prints new tokens and passwords.
//
// # Serve
//
// kit serve loads the schemas folder (default ./schemas: one JSON file per
// collection, optionally in one level of layer folders, and an optional
// kit.config.json), creates or updates the tables, and serves the API under
// --prefix:
//
//	GET|POST         /api/teams/{team}/{apiPath}
//	GET|PATCH|DELETE /api/teams/{team}/{apiPath}/{id}
//	GET              /api/super-admin/{collection}/{id}
//	GET              /api/kit/collections
//	GET              /api/kit/openapi.json
//	GET              /api/teams/{team}/kit-events
//	POST             /api/teams/{team}/kit-collection-events
//	GET              /api/kit-events/health
//
// The last three are the events add-on's (every change is recorded as an
// audit event); --no-events leaves the add-on out, and they answer 404.
// and GET /healthz, which answers {"status":"ok"}. Requests carry
// "Authorization: Bearer TOKEN". SIGINT or SIGTERM stops it gracefully: it
// waits up to 10 s for requests in flight, closes the database and exits
// with status 0. --addr 127.0.0.1:0 picks a free port; the first line on
// stdout that contains "serving" names the address.
//
// # Lint
//
// kit lint prints every finding of a schemas folder, one per line, as
// "file: collection.field: message" (warnings say "warning:" before the
// message), sorted by file, collection and field. It exits with status 1
// when there is an error, 0 otherwise, and 2 for a wrong command line.
//
// # Generated types
//
// kit gen types writes, for each collection of a schemas folder, the
// record, input, list query and list response types the specification
// names (Product, ProductInput, ProductQuery, ProductResponse; see package
// typegen): --lang go one Go file (package --package, default kittypes),
// --lang ts one TypeScript module, --lang vue the TypeScript module plus
// the typed composables of @collectionkit/vue (useShopProducts, ...):
//
//	kit gen types --lang go --schemas schemas --package shop --out shop/kit_types.go
//	kit gen types --lang vue --schemas schemas --out web/src/kit.ts
//
// An unknown --lang or a wrong flag exits with status 2, a schemas folder
// with errors with status 1 (kit lint lists them).
//
// # Accounts
//
// The account commands print what a script captures on stdout, and the
// rest on stderr:
//
//	kit team create --name Acme --slug acme
//	ALICE=$(kit user create --name Alice --email alice@example.com)
//	kit member add --team acme --user "$ALICE" --role owner
//	TOKEN=$(kit token create --user "$ALICE")
//	curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8080/api/teams/acme/shop-products
package main
