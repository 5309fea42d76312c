// Kit serves collections defined in JSON schema files as a team-scoped
// HTTP API, checks schema folders, and manages teams, users, memberships,
// passwords, sessions and API tokens.
//
// Usage:
//
//	kit COMMAND [flags]
//
// The commands, as kit --help lists them (kit help COMMAND prints a
// command's usage and flags; docs/cli.md has them all):
//
//	serve                  serve a schemas folder as a team-scoped HTTP API, with the admin app
//	lint                   check a schemas folder and print every finding
//	openapi                print the OpenAPI 3.1 document of a schemas folder's API
//	gen types              write Go or TypeScript types for a schemas folder's collections
//	team create            create a team and print its id
//	team list              list teams: id, slug, name
//	team rename            change a team's name or slug
//	user create            create a user (--role admin: a super-admin) and print its id
//	user list              list users: id, role, name, email
//	user ban               ban a user: refused with 403 from then on, sessions ended
//	user unban             lift a user's ban
//	user passwd            set a user's password, read from the terminal or stdin
//	user sessions revoke   end every sign-in session of a user
//	member add             add a user to a team, or change their role
//	member remove          remove a user from a team (never its last owner)
//	member role            change a member's role (never demoting the last owner)
//	token create           create an API token for a user and print it
//	token revoke           revoke an API token by id
//	events cleanup         delete audit events past retention (--dry-run: only print them)
//	export                 write a team's records of a collection as CSV, JSON or NDJSON
//	import                 create a team's records from CSV, JSON or NDJSON, all rows or none
//	backup                 write a backup archive (database and files) while kit serves
//	restore                put a backup archive back into an empty database (--force: any)
//	migrate plan           print the schema changes kit serve would make, with SQL
//	migrate apply          make the pending schema changes (--drop: drop removed columns)
//	help                   print this list, or a command's usage and flags
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
// # Schema changes
//
// kit serve brings the tables in line with the schemas when it starts:
// it renames the fields and collections renamed with renamedFrom,
// converts fields whose type changed when every stored value converts,
// and keeps the columns of removed fields. A change the stored data
// cannot take stops it, changing nothing. kit migrate plan prints those
// changes and their SQL for a database without making them (exit status
// 1 when one would be refused); kit migrate apply makes them, and with
// --drop also drops the kept columns and their values. See
// docs/schema-changes.md.
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
