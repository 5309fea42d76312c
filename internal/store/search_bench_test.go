package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
)

// hitRateTerms are marker words and the share of team t1's rows, in
// thousandths, that carry them (as bench's data does).
var hitRateTerms = []struct {
	term     string
	perMille int
}{{"jackdaw", 1}, {"quartz", 20}, {"wyvern", 100}, {"jigsaw", 500}, {"yonder", 950}}

// hitRateRecords returns n records of team t1 and n/10 of t2, oldest
// first: titles and descriptions of pseudo-words (letters no marker uses)
// plus the markers of hitRateTerms at their rates.
func hitRateRecords(n int) []Record {
	r := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		const cons, vows = "bdfghklmnprstv", "aeiou"
		var w []byte
		for range 2 + r.IntN(2) {
			w = append(w, cons[r.IntN(len(cons))], vows[r.IntN(len(vows))])
		}
		return string(w)
	}
	words := func(k int) []string {
		out := make([]string, k)
		for i := range out {
			out[i] = word()
		}
		return out
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]Record, 0, n+n/10)
	for i := range n + n/10 {
		team := "t1"
		if i%11 == 10 {
			team = "t2"
		}
		title, desc := words(3+r.IntN(3)), words(14+r.IntN(12))
		for _, m := range hitRateTerms {
			if r.IntN(1000) < m.perMille {
				if r.IntN(2) == 0 {
					title = append(title, m.term)
				} else {
					desc = append(desc, m.term)
				}
			}
		}
		at := start.Add(time.Duration(i) * time.Second)
		recs = append(recs, Record{"id": fmt.Sprintf("id-%07d", i), "teamId": team, "owner": "u", "title": strings.Join(title, " "),
			"description": strings.Join(desc, " "), "stock": float64(r.IntN(1000)),
			"createdAt": at, "updatedAt": at, "createdBy": "u", "updatedBy": "u"})
	}
	return recs
}

// seedHitRates fills a SQLite file with hitRateRecords(n), then flushes
// the search index.
func seedHitRates(b testing.TB, n int) (*Store, *collections.Collection) {
	b.Helper()
	s, c := productsStore(b, filepath.Join(b.TempDir(), "search.db"))
	db := s.db
	ctx := b.Context()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, rec := range hitRateRecords(n) {
		if err := s.Insert(ctx, tx, c, rec); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.FlushSearch(ctx, tx, c); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// Into the database file, as kit's background checkpoints would.
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		b.Fatal(err)
	}
	return s, c
}

// BenchmarkSearchByHitRate compares kit's search (List) with the plain
// scan a hand-written server makes (a count and a page of 20 newest first,
// both with LIKE on every searched column) term by term, on the same
// table of KIT_BENCH_ROWS rows in team t1 (default 20,000; t2 holds a
// tenth as many). Each iteration runs both, alternating which goes first,
// so background load falls on both alike; it reports each one's time per
// search and scan/kit, how many times faster kit is.
func BenchmarkSearchByHitRate(b *testing.B) {
	s, c := seedHitRates(b, benchRows())
	// Every search counts: the plan against the scan is measured, not a
	// remembered total (totals.go).
	s.TotalsCache = -1
	ctx := b.Context()
	sort := []collections.SortKey{{Attr: mustAttr(b, c, "createdAt"), Desc: true}, {Attr: mustAttr(b, c, "id"), Desc: true}}
	table := quote(c.Table())
	for _, m := range hitRateTerms {
		q := collections.ListQuery{Page: 1, PageSize: 20, Search: m.term, Sort: sort}
		var ors []string
		args := []any{"t1"}
		for _, col := range searchColumns(c) {
			ors = append(ors, quote(col)+` LIKE ? ESCAPE '\'`)
			args = append(args, "%"+m.term+"%")
		}
		where := ` WHERE "team_id" = ? AND (` + strings.Join(ors, " OR ") + ")"
		kit := func() {
			if _, err := s.List(ctx, Read{}, c, "t1", q); err != nil {
				b.Fatal(err)
			}
		}
		scan := func() {
			var total int
			if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+table+where, args...).Scan(&total); err != nil {
				b.Fatal(err)
			}
			rows, err := s.db.QueryContext(ctx, "SELECT "+s.selectList(c)+" FROM "+table+where+` ORDER BY "created_at" DESC, "id" DESC LIMIT 20`, args...)
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
			}
			if err := rows.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(m.term, func(b *testing.B) {
			var kitTime, scanTime time.Duration
			i := 0
			for b.Loop() {
				timed := func(f func(), sum *time.Duration) {
					t0 := time.Now()
					f()
					*sum += time.Since(t0)
				}
				if i%2 == 0 {
					timed(kit, &kitTime)
					timed(scan, &scanTime)
				} else {
					timed(scan, &scanTime)
					timed(kit, &kitTime)
				}
				i++
			}
			b.ReportMetric(float64(kitTime.Microseconds())/float64(i)/1000, "kit-ms")
			b.ReportMetric(float64(scanTime.Microseconds())/float64(i)/1000, "scan-ms")
			b.ReportMetric(float64(scanTime)/float64(kitTime), "scan/kit")
		})
	}
}

// benchRows is the rows of team t1 the hit-rate benchmarks seed:
// KIT_BENCH_ROWS, default 20,000.
func benchRows() int {
	if v, err := strconv.Atoi(os.Getenv("KIT_BENCH_ROWS")); err == nil && v > 0 {
		return v
	}
	return 20000
}
