package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os/exec"
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
	fmt.Fprintf(w, "kit against a hand-written baseline: `%s`, %s to %s UTC, %s.\n\n", m.command,
		m.started.UTC().Format("2006-01-02 15:04"), time.Now().UTC().Format("15:04"), revision())
	fmt.Fprintf(w, "- data: %d products in team acme (loaded), %d in team globex; 2 teams, 1 user (owner of both)\n", len(m.ds.Main), len(m.ds.Other))
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
	fmt.Fprintf(w, "- load: %d connections (keep-alive), closed loop on 127.0.0.1; %s per workload and server in %d round(s) of %s, the servers alternating (kit raw, raw kit, ...); a fresh server child per round, started on the seeded data and warmed up for %s (not timed); at most %d requests per round\n",
		o.conns, o.duration, o.rounds, o.duration/time.Duration(o.rounds), o.warmup, o.maxRequests)
	fmt.Fprintf(w, "- generator: %s\n", m.generator)
	fmt.Fprintf(w, "- kit: %s; raw: %s\n", m.kitEngine, m.rawEngine)
	fmt.Fprintf(w, "- machine: %s, %d CPUs; %s; seeding took %s (not timed)\n", m.goVersion, m.cpus, revision(), m.seedTook.Round(time.Millisecond))
	if m.profilesDir != "" {
		fmt.Fprintf(w, "- CPU profiles of the children: `%s/<server>-<workload>[-<round>].pprof`\n", m.profilesDir)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| workload | server | req/s | p50 | p99 | peak PSS | kit/raw req/s | kit/raw p99 | kit/raw PSS | requests | errors | server CPU | gen CPU | other CPU |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	byKey := map[string]result{}
	for _, r := range rows {
		byKey[r.workload+"/"+r.server] = r
	}
	for _, r := range rows {
		ratio := func(f func(result) float64) string {
			raw, ok := byKey[r.workload+"/raw"]
			if r.server != "kit" || !ok || f(raw) <= 0 || f(r) <= 0 {
				return "—"
			}
			return fmt.Sprintf("%.2fx", f(r)/f(raw))
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
		fmt.Fprintf(w, "| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s |\n",
			r.workload, r.server, r.rate(), ms(percentile(r.latencies, 50)), ms(percentile(r.latencies, 99)), mib(r.peakPSS),
			ratio(result.rate),
			ratio(func(x result) float64 { return float64(percentile(x.latencies, 99)) }),
			ratio(func(x result) float64 { return float64(x.peakPSS) }),
			reqs, r.errors, serverCPU, pct(r.genCPU, secs), pct(r.otherCPU, secs))
	}
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
	fmt.Fprintln(w, "\nreq/s: answered requests per second of the timed run; p50/p99: latency as the client saw it; peak PSS: the")
	fmt.Fprintln(w, "server children's proportional set size, sampled every 100 ms from the warm-up on (the highest of the rounds;")
	fmt.Fprintln(w, "a page that several mappings share counts once); server/gen/other CPU: CPU time of the server child (\"+ db\":")
	fmt.Fprintln(w, "and of the PostgreSQL processes), of the generator and of every other process on the machine during the timed")
	fmt.Fprintln(w, "run, in % of one core, from /proc (tick accounting: approximate, \"other\" is clamped at 0); \"(all)\": the")
	fmt.Fprintln(w, "workload ran out of records before the time was up.")
}

// revision names the commit of the working directory's repository, when
// there is one: kit changes under the benchmark, so a table should say
// which kit it measured.
func revision() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "revision unknown"
	}
	rev := "kit at " + strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=normal").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		rev += " plus uncommitted changes"
	}
	return rev
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

// tableRows returns the data rows of a report's table, for tests.
func tableRows(report string) [][]string {
	var out [][]string
	for _, line := range strings.Split(report, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| workload") {
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
