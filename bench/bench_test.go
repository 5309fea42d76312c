package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/collectionkit/kit/internal/testdb"
)

// TestMain lets the test binary stand in for the bench binary: the server
// children the benchmark starts are this binary with KITBENCH_CHILD set.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(serveMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runSmall runs the whole program in-process with tiny settings and checks
// the report: a row per server and workload, answers without errors, the
// same search results on both servers. Every workload runs in two short
// rounds, so the alternating order is exercised and the smoke test stays a
// few seconds long in the default test run; with -short only two
// workloads run.
func runSmall(t *testing.T, extra ...string) string {
	t.Helper()
	workloads := allWorkloads
	if testing.Short() {
		workloads = []string{"list", "create"}
	}
	outFile := filepath.Join(t.TempDir(), "report.md")
	args := append([]string{"--rows", "300", "--duration", "100ms", "--rounds", "2", "--conns", "4",
		"--workloads", strings.Join(workloads, ","), "--out", outFile}, extra...)
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	report := stdout.String()
	if want := "kit against a hand-written baseline: `go run ./bench --rows 300 --duration 100ms"; !strings.HasPrefix(report, want) {
		t.Errorf("got a report starting %.80q, want it to start with %q", report, want)
	}
	if written, err := os.ReadFile(outFile); err != nil || string(written) != report {
		t.Errorf("--out file differs from stdout (err %v)", err)
	}
	rows := tableRows(report)
	seen := map[string]bool{}
	for _, r := range rows {
		if len(r) != 15 {
			t.Fatalf("row %q has %d cells, want 15", r, len(r))
		}
		seen[r[0]+"/"+r[1]] = true
		if rate, err := strconv.ParseFloat(r[2], 64); err != nil || rate <= 0 {
			t.Errorf("%s/%s: req/s %q", r[0], r[1], r[2])
		}
		if r[11] != "0" {
			t.Errorf("%s/%s: %s errors\n%s", r[0], r[1], r[11], report)
		}
		if r[1] != "raw" && !strings.HasSuffix(r[6], "x") {
			t.Errorf("%s/%s: no ratio to its baseline: %q", r[0], r[1], r[6])
		}
		if !strings.HasSuffix(r[9], " µs") {
			t.Errorf("%s/%s: no CPU per request: %q", r[0], r[1], r[9])
		}
	}
	want := 0
	for _, w := range workloads {
		servers := []string{"kit", "raw"}
		if writes[w] {
			servers = allServers
		}
		want += len(servers)
		for _, s := range servers {
			if !seen[w+"/"+s] {
				t.Errorf("no row for %s/%s", w, s)
			}
		}
	}
	if len(rows) != want {
		t.Errorf("%d rows, want %d", len(rows), want)
	}
	if !strings.Contains(report, "| create | ") || !strings.Contains(report, "The audit trail's price") {
		t.Errorf("report lacks the audit trail's table:\n%s", report)
	}
	for _, want := range []string{"search results identical: yes", "list and filter results identical: yes"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	return report
}

func TestBenchSQLite(t *testing.T) {
	t.Parallel()
	report := runSmall(t)
	if !strings.Contains(report, "kit: embedded SQLite") {
		t.Errorf("report does not name the engine:\n%s", report)
	}
}

func TestBenchPostgres(t *testing.T) {
	dsn := testdb.PostgresDSN(t)
	t.Parallel()
	report := runSmall(t, "--db", dsn)
	if !strings.Contains(report, "kit: PostgreSQL") {
		t.Errorf("report does not name the engine:\n%s", report)
	}
}

// TestBulkSeedAnswersAsTheRecordAPI seeds kit in bulk (store.InsertMany,
// indexes rebuilt, the search index flushed once), as --rows 1000000 does,
// and lets the harness's own check find every list, filter and search
// answer (ids, order and totals) identical to the baseline's and the
// search totals equal to the generator's counts.
func TestBulkSeedAnswersAsTheRecordAPI(t *testing.T) {
	for _, engine := range []testdb.Engine{testdb.EngineSQLite, testdb.EnginePostgres} {
		t.Run("on "+string(engine), func(t *testing.T) {
			args := []string{"--bulk-over", "0"}
			if engine == testdb.EnginePostgres {
				args = append(args, "--db", testdb.PostgresDSN(t))
			}
			t.Parallel()
			runSmall(t, args...)
		})
	}
}

func TestDatasetIsDeterministic(t *testing.T) {
	a, b := newDataset(500), newDataset(500)
	if len(a.Main) != 500 || len(a.Other) != 50 {
		t.Fatalf("rows: %d + %d", len(a.Main), len(a.Other))
	}
	for i := range a.Main {
		if a.Main[i] != b.Main[i] {
			t.Fatalf("row %d differs between runs", i)
		}
	}
	planned := map[string]int{}
	for _, m := range markers {
		planned[m.Word] = m.PerMille
	}
	for _, term := range a.Terms {
		n := a.Matches(term)
		perMille, isMarker := planned[term]
		if !isMarker && n > len(a.Main)/10 {
			t.Errorf("word %q hits %d of %d rows, want at most a tenth", term, n, len(a.Main))
		}
		if got := 1000 * n / len(a.Main); isMarker && (got < perMille-50 || got > perMille+50) {
			t.Errorf("marker %q hits %d of %d rows (%d per mille), want %d per mille give or take 50", term, n, len(a.Main), got, perMille)
		}
	}
	if n := a.Matches("xylophone"); n != 0 {
		t.Errorf("xylophone hits %d rows, want none", n)
	}
}

func TestParseCents(t *testing.T) {
	for in, want := range map[string]int64{"12.34": 1234, "12.3": 1230, "12": 1200, "0.05": 5, "-1.50": -150, "99999999.99": 9999999999} {
		if got, err := parseCents(in); err != nil || got != want {
			t.Errorf("parseCents(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", ".5", "1.", "1.234", "123456789", "1e3", "abc", "--1"} {
		if _, err := parseCents(bad); err == nil {
			t.Errorf("parseCents(%q) accepted", bad)
		}
	}
	if got := centsString(-150); got != "-1.50" {
		t.Errorf("centsString(-150) = %q", got)
	}
}
