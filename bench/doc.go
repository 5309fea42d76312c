// Command bench is kit's load harness: it serves the same data with kit
// and with a hand-written baseline, drives the same HTTP load at each in
// turn and reports one markdown table comparing them.
//
//	go run ./bench                                   # 20,000 rows, 10 s per workload, 32 connections
//	go run ./bench --duration 8s --rounds 4 --out docs/benchmarks.md
//	go run ./bench --db postgres://user@127.0.0.1:5432/db?sslmode=disable
//	go run ./bench --rows 100000 --workloads search,list
//	go run ./bench --duration 3s --cpuprofile /tmp/prof   # then: go tool pprof /tmp/prof/kit-list-*.pprof
//
// docs/benchmarks.md is the reference: what the harness measures and why,
// how to read its tables, the goals they are held to and the current
// tables; docs/decisions holds the design choices they decided. This
// comment describes the program.
//
// # The servers
//
// All answer the same routes with the same JSON shapes for one
// collection, products in layer shop, seeded with identical rows:
//
//   - kit (kitserver.go): kit.New with the products definition,
//     k.Handler() mounted at /api/, a bearer API token from kit's own
//     token table, a user who owns both teams, and the events add-on
//     installed with its defaults, as kit serve runs it. Seeded through
//     kit's record API, or in bulk through kit's storage code above
//     --bulk-over rows (bulk.go).
//   - kit-no-events: the same without the events add-on (kit serve
//     --no-events), on kit's data.
//   - raw (raw.go): net/http, database/sql and the same driver, written
//     the way a careful developer would for this one table: the same
//     pragmas, pool size and indexes, a static token, LIKE or ILIKE
//     search, minimal validation. Seeded with SQL copying kit's stored
//     ids, timestamps and values (seed.go).
//   - raw-audit (rawaudit.go): raw writing an audit row by hand in each
//     write's own transaction, with the changed fields' old and new
//     values as JSON: the work kit's events add-on does, done by hand.
//
// kit-no-events and raw-audit differ from kit and raw only in what a
// write does, so they run the write workloads only; --servers picks a
// subset.
//
// On SQLite each server has a database file of its own; with --db
// postgres://... each has a schema of its own on that server, dropped at
// the end unless --keep.
//
// # A run
//
// run (main.go) seeds both servers (data.go builds the rows and the
// search terms, deterministically), then, unless --check=false, asks both
// the same list, filter and search requests and compares the totals and
// the ids in order (report.go: probes, compare). Then, for each workload
// of --workloads, it runs --rounds rounds per server, the servers taking
// turns (each round starts one server later), each round against a fresh server child started on the
// seeded data (the database put back to its seeded copy first), warmed up
// and then timed for duration/rounds. The rounds of a workload and server
// are merged into one row.
//
// Every server runs in a child process of its own (child.go): the bench
// binary re-executed with the hidden --serve kit|kit-no-events|raw|raw-audit mode (or with
// KITBENCH_CHILD set, as the tests do), listening on 127.0.0.1:0 and
// printing its address. The parent samples the child's proportional set
// size from /proc every 100 ms and reads its CPU time before and after
// the timed run.
//
// The load generator (load.go) is the benchmark process itself: a Go
// net/http client with --conns keep-alive connections, each a worker that
// sends its next request as soon as the previous answer is read (a closed
// loop), until the round's time has passed or --max-requests were sent.
// With --pin auto (the default on 2 or more CPUs) the generator's threads
// are pinned to the first CPU and the child's to the others
// (affinity_linux.go), the generator at GOMAXPROCS --gen-procs, so that
// neither starves the other.
//
// # Workloads
//
// list, search, search-0.1%, search-2%, search-10%, search-50%,
// search-95%, filter, filter-writes, get, ids1, ids100, create, update and
// delete (load.go: newWorkload). Each request is built from the seeded
// data and the workload's own random sequence, seeded by the workload's
// position and round, so two runs send the same requests. delete deletes
// every record of the team once, in a fixed shuffled order, and ends early
// when they are gone.
//
// # The report
//
// writeReport (report.go) prints, in this order: the command line (--out
// left out, the URL of --db hidden), when it ran and which commit it
// measured (git rev-parse, "plus uncommitted changes" when the tree is
// dirty, the --out file aside); the data, the load, the generator, the
// two engines and the machine; one table row per workload and server;
// whether the answers were identical; a warning when other processes used
// more than a tenth of a core during a timed run; the first error of any
// row with errors; and a legend of the columns.
//
// The report goes to stdout. --out FILE writes it to FILE as well
// (out.go): when FILE holds the markers
//
//	<!-- go run ./bench: sqlite tables begin -->
//	<!-- go run ./bench: sqlite tables end -->
//
// (postgres instead of sqlite with --db), only the text between them is
// replaced and the rest of the file is kept; docs/benchmarks.md holds a
// pair for each engine. Any other file is written whole.
//
// # Flags
//
//	--duration 10s       timed run per workload and server, split into the rounds
//	--warmup             untimed warm-up before each round (default duration/5, at most 2s)
//	--rounds 6           rounds per workload and server, the servers taking turns
//	--conns 32           concurrent keep-alive connections
//	--rows 20000         products of the loaded team (the other team gets a tenth)
//	--workloads          comma-separated, default all
//	--db URL             run both servers on PostgreSQL
//	--keep               leave the PostgreSQL schemas for EXPLAIN ANALYZE
//	--check=true         compare the two servers' answers before the load
//	--totals-cache N     kit's Config.TotalsCache (-1: every list counts)
//	--bulk-over 100000   seed kit in bulk above this many rows
//	--events 0           past events in kit's and raw-audit's audit tables (trail.go)
//	--pin auto           CPU placement: split, none or auto
//	--gen-procs 1        GOMAXPROCS of the generator
//	--max-requests       stop a round after this many requests
//	--cpuprofile DIR     CPU profile of every child: DIR/<server>-<workload>-<round>.pprof
//	--out FILE           also write the report to FILE (see above)
//
// go run ./bench --help prints them with their defaults.
//
// # Tests
//
// go test ./bench runs the whole program in-process with tiny settings
// (300 rows, rounds of 50 ms) on SQLite, and on PostgreSQL when
// KIT_TEST_POSTGRES is set, and checks every row of the report: a rate,
// no errors, a ratio to each row's baseline, CPU per request, identical answers. It proves the harness
// works, not how fast kit is.
package main
