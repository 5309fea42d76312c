package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/collectionkit/kit/internal/pgopen"
)

func main() {
	if os.Getenv(childEnv) != "" || len(os.Args) > 1 && (os.Args[1] == "--serve" || os.Args[1] == "-serve") {
		os.Exit(serveMain(os.Args[1:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
		os.Exit(1)
	}
}

// options are the benchmark's flags.
type options struct {
	duration    time.Duration
	warmup      time.Duration
	conns       int
	rows        int
	workloads   []string
	db          string
	out         string
	cpuprofile  string
	maxRequests int64
	pin         string
	genProcs    int
	rounds      int
	bulkOver    int
	trail       int
	check       bool
	keep        bool
	totals      int
	servers     []string
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./bench [flags]\n\nLoads kit and a hand-written baseline with the same data and requests and prints a markdown table.\n\nflags:")
		fs.PrintDefaults()
	}
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "timed run per workload and server")
	fs.DurationVar(&o.warmup, "warmup", -1, "untimed warm-up before each timed run (default duration/5, at most 2s)")
	fs.IntVar(&o.conns, "conns", 32, "concurrent keep-alive connections")
	fs.IntVar(&o.rows, "rows", 20000, "products of the loaded team (the second team gets a tenth as many)")
	wls := fs.String("workloads", strings.Join(allWorkloads, ","), "comma-separated workloads: "+strings.Join(allWorkloads, ", "))
	fs.StringVar(&o.db, "db", "", "postgres://... runs kit and the baseline on PostgreSQL (each in a schema of its own, dropped afterwards)")
	fs.StringVar(&o.out, "out", "", "also write the report to this file; in a file that holds the markers of the engine's tables (docs/benchmarks.md), replace only the text between them")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "directory for CPU profiles of the server children (<server>-<workload>.pprof)")
	fs.Int64Var(&o.maxRequests, "max-requests", 5_000_000, "stop a timed run after this many requests")
	fs.StringVar(&o.pin, "pin", "auto", "CPU placement: split (generator on the first CPU, servers on the others), none, or auto (split when there are at least 2 CPUs)")
	fs.IntVar(&o.genProcs, "gen-procs", 1, "GOMAXPROCS of the load generator")
	fs.IntVar(&o.rounds, "rounds", 6, "split each timed run into this many rounds, alternating which server goes first (kit raw, raw kit, ...), so background load on a shared machine falls on both alike")
	fs.IntVar(&o.bulkOver, "bulk-over", 100_000, "seed kit in bulk (kit's storage code, multi-row INSERTs) instead of through its record API when --rows exceeds this")
	fs.IntVar(&o.trail, "events", 0, "past audit events in kit's event table and in raw-audit's audit table before each round, updates of the seeded products, as a trail that retention keeps holds them (kit serve keeps up to 100000)")
	fs.BoolVar(&o.check, "check", true, "compare kit's and the baseline's answers to every list, filter and search before the load (at --rows 1000000 the baseline's searches scan a million rows each: minutes on a loaded machine)")
	fs.IntVar(&o.totals, "totals-cache", 0, "kit's Config.TotalsCache: remembered totals of filtered and searched lists (0: kit's default, -1: none, so every list counts)")
	srvs := fs.String("servers", strings.Join(allServers, ","), "comma-separated servers: kit (events on, as kit serve runs), kit-no-events, raw, raw-audit; kit-no-events and raw-audit run the write workloads only")
	fs.BoolVar(&o.keep, "keep", false, "leave the PostgreSQL schemas in place after the run (printed at the end) for EXPLAIN ANALYZE; drop them yourself")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, w := range strings.Split(*wls, ",") {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		if !slices.Contains(allWorkloads, w) {
			return o, fmt.Errorf("unknown workload %q (have %s)", w, strings.Join(allWorkloads, ", "))
		}
		if !slices.Contains(o.workloads, w) {
			o.workloads = append(o.workloads, w)
		}
	}
	for _, sv := range strings.Split(*srvs, ",") {
		sv = strings.TrimSpace(sv)
		if sv == "" {
			continue
		}
		if !slices.Contains(allServers, sv) {
			return o, fmt.Errorf("unknown server %q (have %s)", sv, strings.Join(allServers, ", "))
		}
		if !slices.Contains(o.servers, sv) {
			o.servers = append(o.servers, sv)
		}
	}
	switch {
	case len(o.servers) == 0:
		return o, errors.New("no servers")
	case len(o.workloads) == 0:
		return o, errors.New("no workloads")
	case o.duration <= 0 || o.conns < 1 || o.rows < 10 || o.maxRequests < 1 || o.genProcs < 1 || o.rounds < 1:
		return o, errors.New("--duration, --conns, --max-requests, --gen-procs and --rounds must be positive, --rows at least 10")
	case o.db != "" && !pgopen.IsDSN(o.db):
		return o, errors.New("--db takes a postgres:// URL")
	case o.pin != "auto" && o.pin != "split" && o.pin != "none":
		return o, errors.New("--pin is auto, split or none")
	}
	if o.warmup < 0 {
		o.warmup = min(o.duration/5, 2*time.Second)
	}
	return o, nil
}

// allServers are the servers the harness runs: kit as kit serve runs it
// (the events add-on installed), kit without it, the hand-written baseline,
// and the baseline writing an audit row by hand (rawaudit.go).
var allServers = []string{"kit", "kit-no-events", "raw", "raw-audit"}

// serversFor are the servers of o that run workload, in the order of
// round: kit-no-events and raw-audit differ from kit and raw only in what
// a write does, so they run the write workloads only; each round starts
// one server later than the one before, so background load falls on all
// alike.
func serversFor(o options, workload string, round int) []string {
	var list []string
	for _, s := range o.servers {
		if family(s) == s || writes[workload] {
			list = append(list, s)
		}
	}
	if len(list) == 0 {
		return nil
	}
	r := round % len(list)
	return append(list[r:len(list):len(list)], list[:r]...)
}

// run is the whole benchmark: seed, check results, load every workload
// against every server, report.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "kitbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if o.cpuprofile != "" {
		if err := os.MkdirAll(o.cpuprofile, 0o755); err != nil {
			return err
		}
	}

	started := time.Now()
	ds := newDataset(o.rows)
	fmt.Fprintf(stderr, "bench: seeding %d rows into kit and the baseline\n", len(ds.Main)+len(ds.Other))
	fx, err := seed(ctx, dir, o.db, ds, o.bulkOver, o.trail, stderr)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	defer func() {
		if o.keep && fx.pg {
			fmt.Fprintf(stderr, "bench: --keep: the schemas %s (kit) and %s (baseline) stay; drop them with DROP SCHEMA ... CASCADE\n", fx.kitSchema, fx.rawSchema)
			return
		}
		fx.cleanup()
	}()

	// CPU placement: the generator gets the first CPU, the servers the
	// rest, so neither starves the other.
	genCPUs, srvCPUs := []int(nil), []int(nil)
	if cpus := allowedCPUs(); o.pin == "split" || o.pin == "auto" && len(cpus) >= 2 {
		if len(cpus) < 2 {
			return errors.New("--pin split needs at least 2 CPUs")
		}
		genCPUs, srvCPUs = cpus[:1], cpus[1:]
		restore, err := pinProcess(genCPUs)
		if err != nil {
			return err
		}
		defer restore()
	}
	prevProcs := runtime.GOMAXPROCS(o.genProcs)
	defer runtime.GOMAXPROCS(prevProcs)

	meta := reportMeta{opts: o, ds: ds, seedTook: fx.seedTook, cpus: runtime.NumCPU(), goVersion: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH, profilesDir: o.cpuprofile,
		command: commandLine(args), started: started}
	meta.generator = fmt.Sprintf("in-process Go net/http client (this process), GOMAXPROCS=%d", o.genProcs)
	if genCPUs != nil {
		meta.generator += fmt.Sprintf(", pinned to CPU %s; each server runs in a child process of its own pinned to CPU %s (sched_setaffinity on every thread, as taskset -a does), GOMAXPROCS=%d",
			cpuList(genCPUs), cpuList(srvCPUs), len(srvCPUs))
	} else {
		meta.generator += "; servers in child processes of their own, not pinned"
	}
	meta.kitEngine, meta.rawEngine = "embedded SQLite file (modernc, WAL, kit's pool of 8)", "net/http + database/sql + modernc SQLite file, same pragmas, pool of 8, same indexes"
	if fx.pg {
		meta.kitEngine, meta.rawEngine = "PostgreSQL via internal/pgopen (pgx stdlib, simple protocol, pool of 20)", "net/http + database/sql + pgx stdlib on the same PostgreSQL server, same pool (internal/pgopen), same indexes"
	}
	switch {
	case o.totals < 0:
		meta.kitEngine += "; no remembered totals (--totals-cache -1: every filtered or searched list counts)"
	case o.totals > 0:
		meta.kitEngine += fmt.Sprintf("; %d remembered totals (--totals-cache)", o.totals)
	default:
		meta.kitEngine += "; remembered totals on (kit's default)"
	}

	// childArgs are the arguments of a server child; profile names its CPU
	// profile under --cpuprofile ("" for none).
	childArgs := func(server, profile string) []string {
		args := fx.serverArgs(server)
		if family(server) == "kit" && o.totals != 0 {
			args = append(args, "--totals-cache", strconv.Itoa(o.totals))
		}
		if srvCPUs != nil {
			args = append(args, "--cpus", cpuList(srvCPUs))
		}
		if o.cpuprofile != "" && profile != "" {
			args = append(args, "--cpuprofile", filepath.Join(o.cpuprofile, profile+".pprof"))
		}
		return args
	}
	targetOf := func(server string, c *child) target {
		return target{base: "http://" + c.addr + "/api/teams/" + fx.teamID + "/" + productsPath, token: fx.token(server)}
	}

	// Results first: both servers must answer the same lists.
	var chk *checks
	if o.check {
		keys, _ := probes(ds)
		answers := map[string]map[string]answer{}
		for _, server := range []string{"kit", "raw"} {
			if err := fx.restore(ctx, server); err != nil {
				return err
			}
			c, err := startChild(childArgs(server, ""))
			if err != nil {
				return fmt.Errorf("%s: %w", server, err)
			}
			g := newGenerator(1)
			answers[server], err = probe(ctx, g, targetOf(server, c), keys)
			g.close()
			if serr := c.stop(); err == nil {
				err = serr
			}
			if err != nil {
				return fmt.Errorf("%s: %w", server, err)
			}
		}
		c := compare(ds, answers["kit"], answers["raw"])
		chk = &c
	}

	var results []result
	for wi, name := range o.workloads {
		acc := map[string]*result{}
		for round := range o.rounds {
			for _, server := range serversFor(o, name, round) {
				if err := ctx.Err(); err != nil {
					return err
				}
				profile := server + "-" + name
				if o.rounds > 1 {
					profile += fmt.Sprintf("-%d", round+1)
				}
				r, err := runOne(ctx, o, fx, ds, server, name, childArgs(server, profile), targetOf, uint64(wi*o.rounds+round))
				if err != nil {
					return fmt.Errorf("%s/%s: %w", name, server, err)
				}
				fmt.Fprintf(stderr, "bench: %-6s %-13s round %d: %8.0f req/s  p50 %s  p99 %s  peak PSS %s  errors %d\n",
					name, server, round+1, r.rate(), ms(percentile(r.latencies, 50)), ms(percentile(r.latencies, 99)), mib(r.peakPSS), r.errors)
				if acc[server] == nil {
					acc[server] = &r
				} else {
					acc[server].merge(r)
				}
			}
		}
		for _, server := range serversFor(o, name, 0) {
			slices.Sort(acc[server].latencies)
			results = append(results, *acc[server])
		}
	}

	var buf bytes.Buffer
	writeReport(&buf, meta, results, chk)
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	if o.out != "" {
		section := "sqlite"
		if fx.pg {
			section = "postgres"
		}
		if genCPUs == nil {
			// Generator and servers on the same cores (--pin none):
			// tables of their own beside the split placement's.
			section += " shared-cores"
		}
		return writeOut(o.out, section, buf.Bytes())
	}
	return nil
}

// commandLine is the benchmark's command as a report names it: the
// arguments as given, without --out (where the report went) and with the
// URL of --db replaced by postgres://... (it may hold a password).
func commandLine(args []string) string {
	parts := []string{"go run ./bench"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "out":
			if !hasValue {
				i++
			}
			continue
		case "db":
			if !hasValue {
				i++
			}
			parts = append(parts, "--db postgres://...")
			continue
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// runOne starts a fresh server child on the seeded data, warms it up, then
// times the workload.
func runOne(ctx context.Context, o options, fx *fixture, ds *dataset, server, name string, args []string, targetOf func(string, *child) target, seed uint64) (result, error) {
	if err := fx.restore(ctx, server); err != nil {
		return result{}, err
	}
	fx.ran(server, name)
	c, err := startChild(args)
	if err != nil {
		return result{}, err
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = c.stop()
		}
	}()
	t := targetOf(server, c)
	g := newGenerator(o.conns)
	defer g.close()
	var seq atomic.Int64
	wl := newWorkload(name, ds, fx.ids, &seq)
	peakPSS := c.watchMemory(100 * time.Millisecond)
	if o.warmup > 0 {
		// A workload with a finite pool (delete) may spend a tenth of it
		// warming up.
		limit := o.maxRequests
		if wl.pool > 0 {
			limit = min(limit, int64(wl.pool/10))
		}
		g.run(ctx, t, wl, o.warmup, limit, seed*2)
	}
	var pg0 map[int]time.Duration
	if fx.pg {
		pg0 = postgresCPU()
	}
	cpu0, _ := c.cpuTime()
	busy0, _ := machineBusy()
	ph := g.run(ctx, t, wl, o.duration/time.Duration(o.rounds), o.maxRequests, seed*2+1)
	busy1, berr := machineBusy()
	cpu1, cerr := c.cpuTime()
	r := result{workload: name, server: server, phase: ph, peakPSS: peakPSS(), serverCPU: -1, otherCPU: -1, dbCPU: -1}
	if fx.pg {
		r.dbCPU = cpuSince(pg0, postgresCPU())
	}
	if cerr == nil {
		r.serverCPU = cpu1 - cpu0
		if berr == nil {
			r.otherCPU = max(0, busy1-busy0-r.serverCPU-ph.genCPU-max(0, r.dbCPU))
		}
	}
	g.close()
	stopped = true
	if err := c.stop(); err != nil {
		return r, err
	}
	if ph.requests == 0 {
		return r, errors.New("no request was answered")
	}
	return r, nil
}
