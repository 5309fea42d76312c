package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// result is one row of the table: one workload against one server.
type result struct {
	workload, server string
	phase
	peakPSS   int64         // highest sampled PSS of the server child, bytes; -1 unknown
	serverCPU time.Duration // the child's CPU time during the timed run
	otherCPU  time.Duration // CPU time of every other process on the machine then
	dbCPU     time.Duration // CPU time of the PostgreSQL processes then; -1 on SQLite
}

// merge adds another round of the same workload and server.
func (r *result) merge(o result) {
	r.requests += o.requests
	r.errors += o.errors
	if r.firstErr == "" {
		r.firstErr = o.firstErr
	}
	r.elapsed += o.elapsed
	r.latencies = append(r.latencies, o.latencies...) // sorted by the caller
	r.exhausted = r.exhausted || o.exhausted
	r.genCPU += o.genCPU
	r.peakPSS = max(r.peakPSS, o.peakPSS)
	add := func(a *time.Duration, b time.Duration) {
		if *a < 0 || b < 0 {
			*a = -1
			return
		}
		*a += b
	}
	add(&r.serverCPU, o.serverCPU)
	add(&r.otherCPU, o.otherCPU)
	if r.dbCPU >= 0 {
		add(&r.dbCPU, o.dbCPU)
	}
}

func (r result) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.requests) / r.elapsed.Seconds()
}

// answer is the part of a list answer the checks compare.
type answer struct {
	Total int
	IDs   []string
}

// probes are the list requests whose answers must be the same on both
// servers: each search term (two pages of 100), the filters, and list
// pages. kind is "search" or "list/filter".
func probes(ds *dataset) (keys []string, kind map[string]string) {
	kind = map[string]string{}
	add := func(k, q string) { keys = append(keys, q); kind[q] = k }
	for _, t := range ds.Terms {
		add("search", "?search="+url.QueryEscape(t)+"&pageSize=100")
		add("search", "?search="+url.QueryEscape(t)+"&pageSize=100&page=2")
	}
	add("list/filter", "?pageSize=100")
	add("list/filter", "?pageSize=20&page=7")
	for _, f := range filters {
		add("list/filter", "?filter="+url.QueryEscape(f)+"&pageSize=100")
	}
	return keys, kind
}

// probe asks every probe of one server.
func probe(ctx context.Context, g *generator, t target, keys []string) (map[string]answer, error) {
	out := map[string]answer{}
	for _, k := range keys {
		b, err := g.getJSON(ctx, t, k)
		if err != nil {
			return nil, err
		}
		var l struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
			Pagination struct {
				TotalItems int `json:"totalItems"`
			} `json:"pagination"`
		}
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("GET %s: %w", k, err)
		}
		a := answer{Total: l.Pagination.TotalItems, IDs: []string{}}
		for _, it := range l.Items {
			a.IDs = append(a.IDs, it.ID)
		}
		out[k] = a
	}
	return out, nil
}

// checks compares the probe answers of kit and raw, and the search totals
// with the generator's own count.
type checks struct {
	searchSame, listSame bool
	terms                int
	problems             []string
}

func compare(ds *dataset, kitA, rawA map[string]answer) checks {
	keys, kind := probes(ds)
	c := checks{searchSame: true, listSame: true, terms: len(ds.Terms)}
	for _, k := range keys {
		ka, ra := kitA[k], rawA[k]
		if ka.Total != ra.Total || !slices.Equal(ka.IDs, ra.IDs) {
			if kind[k] == "search" {
				c.searchSame = false
			} else {
				c.listSame = false
			}
			c.problems = append(c.problems, fmt.Sprintf("%s: kit %d total, %d items; raw %d total, %d items", k, ka.Total, len(ka.IDs), ra.Total, len(ra.IDs)))
		}
	}
	for _, t := range ds.Terms {
		k := "?search=" + url.QueryEscape(t) + "&pageSize=100"
		if want := ds.Matches(t); kitA[k].Total != want {
			c.searchSame = false
			c.problems = append(c.problems, fmt.Sprintf("search %q: kit finds %d rows, the data has %d", t, kitA[k].Total, want))
		}
	}
	return c
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// reportMeta is what the report says about the setup.
type reportMeta struct {
	opts        options
	ds          *dataset
	kitEngine   string
	rawEngine   string
	generator   string
	seedTook    time.Duration
	cpus        int
	goVersion   string
	profilesDir string
	command     string    // the command line, --out left out and --db's URL hidden
	started     time.Time // when seeding began
}

// writeReport prints the setup, the table and the result checks.
func writeReport(w io.Writer, m reportMeta, rows []result, c *checks) {
	o := m.opts
	rev := revision(o.out)
	fmt.Fprintf(w, "kit against a hand-written baseline: `%s`, %s to %s UTC, %s.\n\n", m.command,
		m.started.UTC().Format("2006-01-02 15:04"), time.Now().UTC().Format("15:04"), rev)
	fmt.Fprintf(w, "- data: %d products in team acme (loaded), %d in team globex; 2 teams, 1 user (owner of both)", len(m.ds.Main), len(m.ds.Other))
	if o.trail > 0 {
		fmt.Fprintf(w, "; %d past events in kit's and raw-audit's audit tables", o.trail)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- search terms and the share of acme's rows they hit:")
	for i, t := range m.ds.Terms {
		sep := ","
		if i == 0 {
			sep = ""
		}
		n := m.ds.Matches(t)
		fmt.Fprintf(w, "%s %s %d (%.2f%%)", sep, t, n, 100*float64(n)/float64(max(1, len(m.ds.Main))))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- load: %d connections (keep-alive), closed loop on 127.0.0.1; %s per workload and server in %d round(s) of %s, the servers taking turns (each round starts one server later: kit, kit-no-events, raw, raw-audit, then kit-no-events, raw, raw-audit, kit, ...; kit-no-events and raw-audit run the write workloads only); a fresh server child per round, started on the seeded data and warmed up for %s (not timed); at most %d requests per round\n",
		o.conns, o.duration, o.rounds, o.duration/time.Duration(o.rounds), o.warmup, o.maxRequests)
	fmt.Fprintf(w, "- generator: %s\n", m.generator)
	fmt.Fprintf(w, "- kit: %s; raw: %s\n", m.kitEngine, m.rawEngine)
	fmt.Fprintf(w, "- machine: %s, %d CPUs; %s; seeding took %s (not timed)\n", m.goVersion, m.cpus, rev, m.seedTook.Round(time.Millisecond))
	if m.profilesDir != "" {
		fmt.Fprintf(w, "- CPU profiles of the children: `%s/<server>-<workload>[-<round>].pprof`\n", m.profilesDir)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| workload | server | req/s | p50 | p99 | peak PSS | ÷ baseline req/s | ÷ baseline p99 | ÷ baseline PSS | CPU per request | requests | errors | server CPU | gen CPU | other CPU |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	byKey := map[string]result{}
	for _, r := range rows {
		byKey[r.workload+"/"+r.server] = r
	}
	for _, r := range rows {
		base, hasBase := byKey[r.workload+"/"+baselineOf(r.server, r.workload, byKey)]
		ratio := func(f func(result) float64) string {
			if !hasBase || f(base) <= 0 || f(r) <= 0 {
				return "—"
			}
			return fmt.Sprintf("%.2fx", f(r)/f(base))
		}
		reqs := fmt.Sprint(r.requests)
		if r.exhausted {
			reqs += " (all)"
		}
		secs := r.elapsed.Seconds()
		serverCPU := pct(r.serverCPU, secs)
		if r.dbCPU >= 0 {
			serverCPU += " + " + pct(r.dbCPU, secs) + " db"
		}
		fmt.Fprintf(w, "| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s |\n",
			r.workload, r.server, r.rate(), ms(percentile(r.latencies, 50)), ms(percentile(r.latencies, 99)), mib(r.peakPSS),
			ratio(result.rate),
			ratio(func(x result) float64 { return float64(percentile(x.latencies, 99)) }),
			ratio(func(x result) float64 { return float64(x.peakPSS) }),
			r.cpuPerRequest(), reqs, r.errors, serverCPU, pct(r.genCPU, secs), pct(r.otherCPU, secs))
	}
	writeAuditTable(w, rows, byKey)
	fmt.Fprintln(w)
	if c == nil {
		fmt.Fprintln(w, "results not compared (--check=false)")
	} else {
		fmt.Fprintf(w, "search results identical: %s (%d terms, pages 1 and 2 of 100: same totalItems, same ids in the same order, totals equal to the generator's count)\n",
			yesNo(c.searchSame), c.terms)
		fmt.Fprintf(w, "list and filter results identical: %s\n", yesNo(c.listSame))
		for _, p := range c.problems {
			fmt.Fprintf(w, "  - %s\n", p)
		}
	}
	noisy := 0
	for _, r := range rows {
		if r.otherCPU.Seconds() > 0.1*r.elapsed.Seconds() {
			noisy++
		}
	}
	if noisy > 0 {
		fmt.Fprintf(w, "warning: other processes used more than 10%% of a core during %d of %d timed runs; their figures are less reliable\n", noisy, len(rows))
	}
	for _, r := range rows {
		if r.errors > 0 {
			fmt.Fprintf(w, "errors in %s/%s: %d, first: %s\n", r.workload, r.server, r.errors, r.firstErr)
		}
	}
	fmt.Fprintln(w, "\nreq/s: successful answers per second of the timed run (an error, such as a refused list's 503, counts in")
	fmt.Fprintln(w, "errors and in no other figure; a client refused with a Retry-After waits what it asks, as kit's clients do,")
	fmt.Fprintln(w, "then sends the same request again, twice at most); p50/p99: latency as the client saw it, from a request's")
	fmt.Fprintln(w, "first attempt; ÷ baseline:")
	fmt.Fprintln(w, "the row's figure divided by its baseline's (kit's by raw-audit's where that ran, the same work done by hand,")
	fmt.Fprintln(w, "else by raw's; kit-no-events' and raw-audit's by raw's); CPU per request: the server child's CPU time (\"+ db\":")
	fmt.Fprintln(w, "and the PostgreSQL processes') divided by the successful answers; peak PSS: the server children's proportional")
	fmt.Fprintln(w, "set size, sampled every 100 ms from the warm-up on (the highest of the rounds; a page that several mappings")
	fmt.Fprintln(w, "share counts once); server/gen/other CPU: CPU time of the server child (\"+ db\": and of the PostgreSQL")
	fmt.Fprintln(w, "processes), of the generator and of every other process on the machine during the timed run, in % of one")
	fmt.Fprintln(w, "core, from /proc (tick accounting: approximate, \"other\" is clamped at 0); \"(all)\": the workload ran out")
	fmt.Fprintln(w, "of records before the time was up.")
}

// revision names the commit of the working directory's repository, when
// there is one: kit changes under the benchmark, so a table should say
// which kit it measured. A change to out, the file the report goes to (no
// file when empty), is not a change to kit: a run that rewrites
// docs/benchmarks.md leaves the next run's kit as it was.
func revision(out string) string {
	res, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "revision unknown"
	}
	rev := "kit at " + strings.TrimSpace(string(res))
	args := []string{"status", "--porcelain", "--untracked-files=normal", "--", ":/"}
	if out != "" {
		if rel, err := relToWorkingDir(out); err == nil {
			args = append(args, ":(exclude)"+rel)
		}
	}
	if st, err := exec.Command("git", args...).Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		rev += " plus uncommitted changes"
	}
	return rev
}

// relToWorkingDir returns path relative to the working directory, as git
// reads a pathspec.
func relToWorkingDir(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Rel(wd, abs)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func mib(b int64) string {
	if b < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func pct(d time.Duration, secs float64) string {
	if secs <= 0 || d < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*d.Seconds()/secs)
}

// tableRows returns the data rows of a report's first table, for tests.
func tableRows(report string) [][]string {
	var out [][]string
	for _, line := range strings.Split(report, "\n") {
		if !strings.HasPrefix(line, "|") {
			if out != nil {
				break
			}
			continue
		}
		if strings.HasPrefix(line, "| workload") || strings.HasPrefix(line, "|---") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		out = append(out, cells)
	}
	return out
}

// baselineOf names the server whose row a row of server is divided by:
// kit's is raw-audit (the same work by hand) where it ran the workload,
// else raw; kit-no-events' and raw-audit's is raw; raw has none.
func baselineOf(server, workload string, byKey map[string]result) string {
	switch server {
	case "kit":
		if _, ok := byKey[workload+"/raw-audit"]; ok {
			return "raw-audit"
		}
		return "raw"
	case "kit-no-events", "raw-audit":
		return "raw"
	}
	return ""
}

// cpuPerRequest is the server child's CPU time per answered request ("+
// N db": and the PostgreSQL processes'), in microseconds.
func (r result) cpuPerRequest() string {
	if r.requests <= 0 || r.serverCPU < 0 {
		return "n/a"
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(r.requests) }
	out := fmt.Sprintf("%.0f µs", per(r.serverCPU))
	if r.dbCPU >= 0 {
		out = fmt.Sprintf("%.0f + %.0f db µs", per(r.serverCPU), per(r.dbCPU))
	}
	return out
}

// writeAuditTable prints, for each write workload that ran on kit, the
// audit trail's price: kit with events against kit without, against the
// same work by hand (raw-audit), kit without events against raw, and the
// hand-written audit row's own price.
func writeAuditTable(w io.Writer, rows []result, byKey map[string]result) {
	var lines []string
	for _, r := range rows {
		if r.server != "kit" || !writes[r.workload] {
			continue
		}
		ratio := func(a, b string) string {
			x, okA := byKey[r.workload+"/"+a]
			y, okB := byKey[r.workload+"/"+b]
			if !okA || !okB || y.rate() <= 0 {
				return "—"
			}
			return fmt.Sprintf("%.2fx", x.rate()/y.rate())
		}
		var cpus []string
		for _, s := range allServers {
			if x, ok := byKey[r.workload+"/"+s]; ok {
				cpus = append(cpus, x.cpuPerRequest())
			} else {
				cpus = append(cpus, "—")
			}
		}
		lines = append(lines, fmt.Sprintf("| %s | %s | %s | %s | %s | %s |", r.workload,
			ratio("kit", "kit-no-events"), ratio("kit", "raw-audit"), ratio("kit-no-events", "raw"), ratio("raw-audit", "raw"),
			strings.Join(cpus, " / ")))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "\nThe audit trail's price, write workloads (req/s ratios; CPU per request of kit / kit-no-events / raw / raw-audit):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| workload | kit ÷ kit-no-events | kit ÷ raw-audit | kit-no-events ÷ raw | raw-audit ÷ raw | CPU per request |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--|")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
