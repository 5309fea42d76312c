package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/sqlexec"
)

// A list runs in three steps. First the data-dependent choices, which
// read the database: a search's plan (planSearch), a filter's plan
// (planFilter), a scan slot for a list that reads beyond an index range
// (scanslots.go). Then planList, a pure function of the collection, the
// query and those choices, writes the statements' text and arguments.
// Last List runs them: the count (or the team's kept row count, or a
// remembered total) and the page.

// listInputs are the explicit inputs of planList besides the collection,
// the team and the query: the choices List made by reading the database,
// and where the list runs.
type listInputs struct {
	// pool says that the list runs on the Store's own pool, not in a
	// transaction of the caller's: its total may come from the counts the
	// Store keeps.
	pool bool
	// remember says that the Store remembers totals (TotalsCache).
	remember bool
	search   searchPlan
	filter   filterPlan
	// probe is a version probe's column ("" without one).
	probe string
}

// listPlan is a list's statements, as planList wrote them.
type listPlan struct {
	// where and args are the WHERE clause of the page and its arguments.
	where string
	args  []any
	// from is the page's FROM and WHERE.
	from string
	// count is the statement that counts the matches (without the
	// probe's column; see countStmt).
	count countStmt
	// searchOnly says that the count reads the PostgreSQL search table
	// alone, with the team's row count as its second column (teamSize).
	searchOnly bool
	docCond    string
	docArg     any
	// keptTotal says that the total is the team's row count kept by the
	// writes (counts.go).
	keptTotal bool
	// pageAndTotal, when not "", is one PostgreSQL statement reading the
	// page and the team's kept row count together (pageWithTotal), with
	// pageAndTotalArgs.
	pageAndTotal     string
	pageAndTotalArgs []any
	// totalKey is the key of the list's remembered total ("" when the
	// list remembers none; see totals.go).
	totalKey string
}

// planList writes the statements of list q of team teamID of c.
func (s *Store) planList(c *collections.Collection, teamID string, q collections.ListQuery, in listInputs) (listPlan, error) {
	var p listPlan
	var err error
	if p.where, p.args, err = s.where(c, teamID, q, false); err != nil {
		return listPlan{}, err
	}
	table := quote(c.Table())
	// The team test comes first in where: "+" before it keeps the planner
	// off the team's index, so that an indexed search starts from the
	// index's candidates (the count costs what the candidates cost, not a
	// pass over every row of the team) and a scan in table order reads
	// the table sequentially (see planSearch).
	p.from = " FROM " + table + " WHERE " + p.where
	p.count = countStmt{cols: "count(*)", from: p.from, fromArgs: p.args}
	if in.search.tableOrder || in.filter.tableOrder {
		p.count.from = " FROM " + table + " WHERE +" + p.where
	}
	if in.search.index {
		w, a, err := s.where(c, teamID, q, true)
		if err != nil {
			return listPlan{}, err
		}
		p.count.from, p.count.fromArgs = " FROM "+table+" WHERE +"+w, a
	}
	// A PostgreSQL search without filter or ids (see usesSearchTable)
	// counts in the search table alone, no join; with the count comes the
	// team's row count, for the page's plan (sortMatches).
	if q.Search != "" && q.IDs == nil && len(q.Filter) == 0 && s.usesSearchTable(c, q.Search) {
		p.searchOnly = true
		p.docCond, p.docArg = docMatch(q.Search)
		p.count.cols += ", (SELECT coalesce(sum(n), 0) FROM kit_row_counts WHERE table_name = ? AND team_id = ?)"
		p.count.colArgs = []any{c.Table(), teamID}
		p.count.from, p.count.fromArgs = " FROM "+quote(searchTable(c.Table()))+` WHERE "team_id" = ? AND `+p.docCond, []any{teamID, p.docArg}
	}
	switch {
	case unfiltered(q) && in.pool:
		p.keptTotal = true
		if s.has(featPageWithTotal) {
			p.pageAndTotal, p.pageAndTotalArgs = s.pageWithTotalSQL(c, teamID, q, p.from, p.args, in.probe)
		}
	case in.pool && in.remember && q.IDs == nil:
		p.totalKey = totalKey(c.Table(), p.where, p.args)
	}
	return p, nil
}

// pageSQL writes the statement that reads the page of a list of total
// matches (teamSize: the team's rows, for searchOnly), with extra columns
// and their arguments before the probe's.
func (s *Store) pageSQL(p *listPlan, c *collections.Collection, teamID string, q collections.ListQuery, in listInputs, total, teamSize int, extra string, extraArgs []any) (string, []any) {
	from, args := p.from, p.args
	if in.search.index && in.search.sortMatches(q, total) {
		from, args = p.count.from, p.count.fromArgs
	}
	if in.filter.walkCreated(q, total) {
		from = " FROM " + quote(c.Table()) + " INDEXED BY " + quote(createdIndex(c)) + " WHERE " + p.where
	}
	order := s.orderBy(q.Sort)
	if p.searchOnly && createdOrder(q.Sort) && (searchPlan{team: teamSize}).sortMatches(q, total) {
		// Few matches: the page's ids come from sorting them in the
		// search table (through its trigram index), and only the page's
		// rows are read from the collection table. Otherwise the planner
		// walks the team's rows in created order and stops at the page.
		query := "SELECT " + s.selectList(c) + extra + in.probe + " FROM " + quote(c.Table()) + ` WHERE "team_id" = ? AND "id" IN (SELECT "id" FROM ` + quote(searchTable(c.Table())) +
			` WHERE "team_id" = ? AND ` + p.docCond + " ORDER BY " + order + " LIMIT " + s.hiddenArg() + " OFFSET ?) ORDER BY " + order
		return query, append(slices.Clip(extraArgs), teamID, teamID, p.docArg, q.PageSize, q.Offset())
	}
	query := "SELECT " + s.selectList(c) + extra + in.probe + from + " ORDER BY " + order + " LIMIT " + s.hiddenArg() + " OFFSET ?"
	return query, append(append(slices.Clip(extraArgs), args...), q.PageSize, q.Offset())
}

// pageWithTotalSQL writes the PostgreSQL statement that reads an
// unfiltered page (from and args: its FROM and WHERE) and the team's kept
// row count (its sum and its number of delta rows) in one statement, the
// count a scalar subquery of the page's: one snapshot for both, one round
// trip instead of two.
func (s *Store) pageWithTotalSQL(c *collections.Collection, teamID string, q collections.ListQuery, from string, args []any, probe string) (string, []any) {
	query := "SELECT " + s.selectList(c) + ", (SELECT coalesce(sum(n), 0) FROM kit_row_counts WHERE table_name = ? AND team_id = ?)" +
		", (SELECT count(*) FROM kit_row_counts WHERE table_name = ? AND team_id = ?)" + probe +
		from + " ORDER BY " + s.orderBy(q.Sort) + " LIMIT " + s.hiddenArg() + " OFFSET ?"
	all := append([]any{c.Table(), teamID, c.Table(), teamID}, args...)
	return query, append(all, q.PageSize, q.Offset())
}

// listRun is one List call: what it runs on and what it holds until it
// returns.
type listRun struct {
	s      *Store
	c      *collections.Collection
	teamID string
	q      collections.ListQuery
	in     listInputs
	// read is where the list's statements run: the caller's Read, or a
	// shared scan's transaction (holdScan).
	read Read
	// probeDst records the probe's column (nil without a probe).
	probeDst sql.Scanner
	started  time.Time
	// compact says that a version check found many PostgreSQL delta rows:
	// they are compacted once the list is done, after a shared search's
	// transaction ended, so that the compaction never waits for the
	// connection the list holds.
	compact bool
	held    []func()
}

// done releases what the list held (slots, a shared transaction), last
// first, then compacts the team's delta rows when a check asked for it.
func (l *listRun) done(ctx context.Context) {
	for i := len(l.held) - 1; i >= 0; i-- {
		l.held[i]()
	}
	if l.compact {
		l.s.compactChecked(ctx, l.c, l.teamID)
	}
}

// List runs a validated list query for team teamID. Page.Total is exact:
// for a query without filter, search or ids run on the Store's own pool
// it is the team's row count kept by the writes (one indexed read, see
// counts.go); for a filter or a search on the Store's own pool, a
// remembered count of the matches when the statement that reads the page
// confirms that the team's rows have not changed since it was counted
// (see totals.go), a count of the matches otherwise; inside a
// transaction (whose own writes a SQLite group has not counted yet), a
// count of the matches.
func (s *Store) List(ctx context.Context, r Read, c *collections.Collection, teamID string, q collections.ListQuery) (Page, error) {
	col, dst := r.probeColumn()
	l := &listRun{s: s, c: c, teamID: teamID, q: q, read: r, probeDst: dst, started: time.Now(),
		in: listInputs{pool: r.pool(), remember: s.totalsLimit() > 0, probe: col}}
	defer l.done(ctx)
	ctx, err := l.choose(ctx)
	if err != nil {
		return Page{}, err
	}
	p, err := s.planList(c, teamID, q, l.in)
	if err != nil {
		return Page{}, err
	}
	if p.pageAndTotal != "" {
		if page, ok, err := l.pageWithTotal(ctx, &p); err != nil || ok {
			return page, err
		}
	}
	if p.totalKey != "" {
		if e := s.totals.get(p.totalKey); e != nil {
			if page, ok, err := l.remembered(ctx, &p, e); err != nil || ok {
				return page, err
			}
		}
	}
	total, teamSize, err := l.total(ctx, &p)
	if err != nil {
		return Page{}, err
	}
	page := Page{Total: total, Records: []Record{}}
	if total == 0 || q.Offset() >= total {
		return page, nil
	}
	recs, err := l.page(ctx, &p, total, teamSize, "", nil, nil)
	if err != nil {
		return Page{}, err
	}
	if recs != nil {
		page.Records = recs
	}
	return page, nil
}

// choose makes the list's data-dependent choices: its search or filter
// plan, and the scan slot (and shared transaction) a list that may read
// many rows runs in. It returns the context the list's statements run
// under.
func (l *listRun) choose(ctx context.Context) (context.Context, error) {
	s, c, q := l.s, l.c, l.q
	// With ids the ids bound the work: no plan, no slot.
	if q.Search != "" && q.IDs == nil {
		plan, err := s.planSearch(ctx, l.read.db(s), c, l.teamID, q.Search)
		if err != nil {
			return ctx, err
		}
		l.in.search = plan
		if plan.index && !plan.heavy {
			// At most rareCandidates candidates: every statement of the
			// search is bounded and runs without a watch on ctx
			// (sqlexec.Bounded). A heavy search keeps it: it may read
			// the team's rows, and the slots keep such searches few.
			ctx = sqlexec.Bounded(ctx)
		}
		if plan.heavy {
			if err := l.holdScan(ctx, s.acquireScan); err != nil {
				return ctx, err
			}
		}
	}
	if scansTeam(c, q) {
		// A filter no index narrows, or an order no index holds: a
		// large team's rows are read in a scan slot (scanslots.go).
		acquire := func(ctx context.Context) (func(), error) { return s.acquireTeamScan(ctx, l.read, c, l.teamID) }
		// As a search's, a filter runs on PostgreSQL beside another
		// slot's list without parallel workers. (A sort keeps the
		// Store's pool: its total is the team's kept row count.)
		if len(q.Filter) > 0 {
			if err := l.holdScan(ctx, acquire); err != nil {
				return ctx, err
			}
		} else {
			release, err := acquire(ctx)
			if err != nil {
				return ctx, err
			}
			l.held = append(l.held, release)
		}
	}
	if len(q.Filter) > 0 && q.Search == "" && q.IDs == nil {
		plan, err := s.planFilter(ctx, l.read, c, l.teamID, q)
		if err != nil {
			return ctx, err
		}
		l.in.filter = plan
	}
	return ctx, nil
}

// holdScan takes a slot through acquire and runs the list's statements
// in a shared scan (sharedScan) until it is done.
func (l *listRun) holdScan(ctx context.Context, acquire func(context.Context) (func(), error)) error {
	release, err := acquire(ctx)
	if err != nil {
		return err
	}
	l.held = append(l.held, release)
	shared, end, err := l.s.sharedScan(ctx, l.read)
	if err != nil {
		return err
	}
	l.held = append(l.held, end)
	l.read = shared
	return nil
}

// pageWithTotal runs p.pageAndTotal. An empty page carries no count: ok
// false, and List reads the count by itself.
func (l *listRun) pageWithTotal(ctx context.Context, p *listPlan) (Page, bool, error) {
	var total, rows int64
	recs, err := l.s.scanRecordsAnd(ctx, l.read.db(l.s), l.c, append([]any{&total, &rows}, extraOf(l.probeDst)...), p.pageAndTotal, p.pageAndTotalArgs...)
	if err != nil || len(recs) == 0 {
		return Page{}, false, err
	}
	l.compact = rows > countCompactOver
	return Page{Records: recs, Total: int(total)}, true, nil
}

// remembered answers the list from its remembered total e when the
// statement that reads the page confirms that the team's rows are as
// they were when it was counted; ok false means the list counts again.
func (l *listRun) remembered(ctx context.Context, p *listPlan, e *totalEntry) (Page, bool, error) {
	s := l.s
	var vr versionResult
	vcol, vargs := s.versionCheck(l.c.Table(), l.teamID, e)
	if e.total == 0 || l.q.Offset() >= e.total {
		// The remembered total has no page to read: the check alone,
		// with the probe.
		var one int
		if err := s.queryRow(ctx, l.read.db(s), "SELECT 1"+vcol+l.in.probe, vargs...).Scan(append(append([]any{&one}, vr.dest()...), extraOf(l.probeDst)...)...); err != nil {
			return Page{}, false, fmt.Errorf("store: count %s: %w", l.c.Table(), err)
		}
		l.compact = s.manyDeltaRows(vr)
		return Page{Total: e.total, Records: []Record{}}, s.unchanged(vr, e), nil
	}
	recs, err := l.page(ctx, p, e.total, e.teamSize, vcol, vargs, vr.dest())
	if err != nil || len(recs) == 0 {
		// No row where the total promised some: the rows changed; count
		// again.
		return Page{}, false, err
	}
	l.compact = s.manyDeltaRows(vr)
	if s.unchanged(vr, e) {
		return Page{Total: e.total, Records: recs}, true, nil
	}
	// Changed: count again. The page stands, read during this request as
	// a page read after the count would be.
	total, _, err := l.total(ctx, p)
	if err != nil {
		return Page{}, false, err
	}
	page := Page{Total: total, Records: []Record{}}
	if l.q.Offset() < total {
		page.Records = recs
	}
	return page, true, nil
}

// total counts the list's matches: the team's kept row count, a count
// remembered under p.totalKey, or a count of its own. teamSize is the
// team's row count when the count reads it too (searchOnly).
func (l *listRun) total(ctx context.Context, p *listPlan) (total, teamSize int, err error) {
	s := l.s
	cs := p.count
	cs.into = []any{&total}
	if p.searchOnly {
		cs.into = append(cs.into, &teamSize)
	}
	switch {
	case p.keptTotal:
		total, err = s.teamRows(ctx, l.read, l.c, l.teamID)
	case p.totalKey != "":
		err = s.countRemembered(ctx, l.read.db(s), l.c, l.teamID, p.totalKey, l.started, cs, &total, &teamSize, l.in.probe, l.probeDst)
	default:
		err = s.queryRow(ctx, l.read.db(s), "SELECT "+cs.cols+l.in.probe+cs.from, append(slices.Clip(cs.colArgs), cs.fromArgs...)...).Scan(append(cs.into, extraOf(l.probeDst)...)...)
		if err != nil {
			err = fmt.Errorf("store: count %s: %w", l.c.Table(), err)
		}
	}
	return total, teamSize, err
}

// page reads the page of a list of total matches, with extra columns
// (their arguments and destinations) before the probe's.
func (l *listRun) page(ctx context.Context, p *listPlan, total, teamSize int, extra string, extraArgs, extraDst []any) ([]Record, error) {
	query, args := l.s.pageSQL(p, l.c, l.teamID, l.q, l.in, total, teamSize, extra, extraArgs)
	return l.s.scanRecordsAnd(ctx, l.read.db(l.s), l.c, append(slices.Clip(extraDst), extraOf(l.probeDst)...), query, args...)
}
