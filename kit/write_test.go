package kit_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

// holdWrites makes the next mutation's transaction wait (inside its tx
// hook) until the returned release is called, so that the writes started
// meanwhile queue up and commit as one group. It returns after the held
// write has started.
func holdWrites(t *testing.T, k *kit.Kit, a kit.Actor) (release func(), done <-chan error) {
	t.Helper()
	started, unblock := make(chan struct{}), make(chan struct{})
	var once sync.Once
	k.OnMutationTx(func(_ context.Context, _ bun.Tx, m *kit.Mutation) error {
		if title, _ := m.Data["title"].(string); title == "holder" {
			once.Do(func() { close(started) })
			<-unblock
		}
		return nil
	})
	errc := make(chan error, 1)
	go func() {
		_, err := k.Records(productsKey).Create(context.Background(), a, map[string]any{"title": "holder"})
		errc <- err
	}()
	<-started
	return func() { close(unblock) }, errc
}

// waitQueued waits until n writes are queued behind the held one.
func waitQueued(t *testing.T, k *kit.Kit, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for kit.QueuedWrites(k) < n {
		if time.Now().After(deadline) {
			t.Fatalf("queued writes: got %d, want %d", kit.QueuedWrites(k), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestGroupCommit checks SQLite's group commit: writes queued behind a
// running transaction commit together, and one that fails (an error or a
// panic in a tx hook, a unique conflict) is rolled back alone, with
// everything it wrote through its transaction, while its group commits.
func TestGroupCommit(t *testing.T) {
	errHook := errors.New("hook refused")
	k := newKitConfig(t, kit.Config{SQLitePath: tempDBPath(t), Definitions: shopDefs()})
	ctx := context.Background()
	if _, err := k.DB().ExecContext(ctx, `CREATE TABLE side_effects (title TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	release, holderDone := holdWrites(t, k, aliceA)
	// Every write records a row through its own transaction, then the
	// hook fails or panics for some titles: the side row must go too.
	k.OnMutationTx(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
		title, _ := m.Data["title"].(string)
		if _, err := tx.ExecContext(ctx, `INSERT INTO side_effects (title) VALUES (?)`, title); err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(title, "fail"):
			return errHook
		case strings.HasPrefix(title, "panic"):
			panic("hook panicked for " + title)
		}
		return nil
	})
	var afterCommit sync.Map
	k.OnMutation(func(_ context.Context, m kit.Mutation) { afterCommit.Store(m.Data["title"], true) })

	type outcome struct {
		title    string
		err      error
		panicked any
	}
	titles := []string{"good-1", "fail-1", "good-2", "panic-1", "dup-first", "dup-second", "good-3", "fail-2", "good-4"}
	results := make(chan outcome, len(titles))
	var queued atomic.Int64
	for i, title := range titles {
		data := map[string]any{"title": title}
		if strings.HasPrefix(title, "dup") {
			data["sku"] = "SAME-SKU"
		}
		go func() {
			o := outcome{title: title}
			defer func() {
				o.panicked = recover()
				results <- o
			}()
			_, o.err = k.Records(productsKey).Create(ctx, aliceA, data)
		}()
		// One at a time, so the queue keeps the order of titles.
		queued.Add(1)
		waitQueued(t, k, i+1)
	}
	release()
	if err := <-holderDone; err != nil {
		t.Fatalf("held write: %v", err)
	}
	got := map[string]outcome{}
	for range titles {
		o := <-results
		got[o.title] = o
	}

	tests := []struct {
		title     string
		wantErr   error // nil: committed
		wantPanic bool
		wantCode  int
	}{
		{title: "good-1"},
		{title: "fail-1", wantErr: errHook},
		{title: "good-2"},
		{title: "panic-1", wantPanic: true},
		{title: "dup-first"},
		{title: "dup-second", wantCode: 409},
		{title: "good-3"},
		{title: "fail-2", wantErr: errHook},
		{title: "good-4"},
	}
	for _, tc := range tests {
		committed := tc.wantErr == nil && !tc.wantPanic && tc.wantCode == 0
		name := fmt.Sprintf("%s is rolled back alone", tc.title)
		if committed {
			name = fmt.Sprintf("%s commits with its group", tc.title)
		}
		t.Run(name, func(t *testing.T) {
			o := got[tc.title]
			switch {
			case tc.wantPanic:
				if o.panicked == nil {
					t.Errorf("got no panic in the caller (err %v), want the hook's panic re-raised", o.err)
				}
			case tc.wantCode != 0:
				if kit.StatusOf(o.err) != tc.wantCode {
					t.Errorf("got %v (status %d), want status %d", o.err, kit.StatusOf(o.err), tc.wantCode)
				}
			case !errors.Is(o.err, tc.wantErr) || o.panicked != nil:
				t.Errorf("got error %v, panic %v; want error %v", o.err, o.panicked, tc.wantErr)
			}
			var rows, sides int
			if err := k.DB().QueryRowContext(ctx, `SELECT count(*) FROM `+productsTable+` WHERE title = ?`, tc.title).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if err := k.DB().QueryRowContext(ctx, `SELECT count(*) FROM side_effects WHERE title = ?`, tc.title).Scan(&sides); err != nil {
				t.Fatal(err)
			}
			_, fired := afterCommit.Load(tc.title)
			want := 0
			if committed {
				want = 1
			}
			if rows != want || sides != want || fired != committed {
				t.Errorf("got %d records, %d side rows, after-commit hook fired %v; want %d, %d, %v", rows, sides, fired, want, want, committed)
			}
		})
	}
}

// TestGroupCommitCancelledWhileQueued checks that a write whose context
// ends while it waits in the queue returns the context's error and writes
// nothing.
func TestGroupCommitCancelledWhileQueued(t *testing.T) {
	k := newKitConfig(t, kit.Config{SQLitePath: memPath(t), Definitions: shopDefs()})
	release, holderDone := holdWrites(t, k, aliceA)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := k.Records(productsKey).Create(ctx, aliceA, map[string]any{"title": "cancelled"})
		errc <- err
	}()
	waitQueued(t, k, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled write: got %v, want context.Canceled", err)
	}
	if n := kit.QueuedWrites(k); n != 0 {
		t.Errorf("queued writes after the cancel: got %d, want 0", n)
	}
	release()
	if err := <-holderDone; err != nil {
		t.Fatalf("held write: %v", err)
	}
	var n int
	if err := k.DB().QueryRowContext(context.Background(), `SELECT count(*) FROM `+productsTable+` WHERE title = 'cancelled'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("records of the cancelled write: got %d, want 0", n)
	}
}

// TestGroupCommitSingleStatementWrites checks the writes that run without
// a savepoint (no OnMutationTx listener, a collection without order): a
// write whose statement fails (here a trigger raising an error after the
// row and its search-log entry were written) leaves nothing behind, the
// rest of its group commits, and the search index matches the table.
func TestGroupCommitSingleStatementWrites(t *testing.T) {
	k := newKitConfig(t, kit.Config{SQLitePath: tempDBPath(t), Definitions: shopDefs()})
	ctx := context.Background()
	if _, err := k.DB().ExecContext(ctx, `CREATE TRIGGER boom AFTER INSERT ON `+productsTable+
		` WHEN new.title LIKE 'boom%' BEGIN SELECT RAISE(ABORT, 'boom refused'); END`); err != nil {
		t.Fatal(err)
	}
	victim := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "victim quartz"})
	release := kit.HoldWrites(k)
	type outcome struct {
		title string
		err   error
	}
	ops := []struct {
		title string
		run   func() error
	}{
		{"good quartz 1", nil},
		{"boom quartz", nil},
		{"good quartz 2", nil},
		{"delete victim", func() error { return k.Records(productsKey).Delete(ctx, aliceA, victim["id"].(string)) }},
		{"boom again", nil},
		{"good quartz 3", nil},
	}
	results := make(chan outcome, len(ops))
	for i, op := range ops {
		run := op.run
		if run == nil {
			run = func() error {
				_, err := k.Records(productsKey).Create(ctx, aliceA, map[string]any{"title": op.title})
				return err
			}
		}
		go func() { results <- outcome{op.title, run()} }()
		waitQueued(t, k, i+1)
	}
	release()
	got := map[string]error{}
	for range ops {
		o := <-results
		got[o.title] = o.err
	}
	for _, op := range ops {
		failing := strings.HasPrefix(op.title, "boom")
		name := op.title + " commits with its group"
		if failing {
			name = op.title + " fails alone and leaves nothing"
		}
		t.Run(name, func(t *testing.T) {
			err := got[op.title]
			if failing != (err != nil) {
				t.Fatalf("got error %v, want failure %v", err, failing)
			}
			if failing && !strings.Contains(err.Error(), "boom refused") {
				t.Errorf("got error %v, want the trigger's", err)
			}
			if op.run != nil {
				return
			}
			var n int
			if err := k.DB().QueryRowContext(ctx, `SELECT count(*) FROM `+productsTable+` WHERE title = ?`, op.title).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 0, false: 1}[failing]; n != want {
				t.Errorf("records titled %q: got %d, want %d", op.title, n, want)
			}
		})
	}
	t.Run("search finds exactly the committed records", func(t *testing.T) {
		l := mustList(t, k, productsKey, aliceA, query("search", "quartz", "sort", "title"))
		want := []any{"good quartz 1", "good quartz 2", "good quartz 3"}
		if got := fieldValues(l.Items, "title"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("the search index passes SQLite's integrity check", func(t *testing.T) {
		checkSearchIndex(t, k)
	})
}

// checkSearchIndex runs FTS5's integrity-check on the products search
// index.
func checkSearchIndex(t *testing.T, k *kit.Kit) {
	t.Helper()
	fts := `"fts_` + productsTable + `_search"`
	if _, err := k.DB().ExecContext(t.Context(), `INSERT INTO `+fts+`(`+fts+`) VALUES ('integrity-check')`); err != nil {
		t.Errorf("integrity-check: got %v, want nil", err)
	}
}

// TestUniqueViolationsNameTheField checks both ways a unique value is
// refused: by the index itself (a collection with one unique field, where
// kit does not look first) and by kit's look-up (two unique fields, where
// the index could not say which one). Either way the answer is a 409
// naming the field and nothing is written, with and without a savepoint
// (an OnMutationTx listener), on every engine.
func TestUniqueViolationsNameTheField(t *testing.T) {
	oneUnique := collections.Definition{Name: "parts", Layer: "shop", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString},
		{Name: "code", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
	}}
	twoUnique := collections.Definition{Name: "tools", Layer: "shop", Fields: []collections.Field{
		{Name: "title", Type: collections.TypeString},
		{Name: "code", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
		{Name: "barcode", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
	}}
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		tests := []struct {
			name   string
			key    string
			hook   bool
			first  map[string]any
			second map[string]any
			field  string
		}{
			{"a collection's only unique index refuses a taken value", "shopParts", false,
				map[string]any{"code": "A"}, map[string]any{"code": "A"}, "code"},
			{"the only unique index refuses it inside a savepoint too", "shopParts", true,
				map[string]any{"code": "A"}, map[string]any{"code": "A"}, "code"},
			{"with two unique fields the second one is named", "shopTools", false,
				map[string]any{"code": "A", "barcode": "1"}, map[string]any{"code": "B", "barcode": "1"}, "barcode"},
			{"with two unique fields the first one is named", "shopTools", true,
				map[string]any{"code": "A", "barcode": "1"}, map[string]any{"code": "A", "barcode": "2"}, "code"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				k := newKitOn(t, e, oneUnique, twoUnique)
				if tc.hook {
					k.OnMutationTx(func(context.Context, bun.Tx, *kit.Mutation) error { return nil })
				}
				ctx := context.Background()
				first, err := k.Records(tc.key).Create(ctx, aliceA, tc.first)
				if err != nil {
					t.Fatal(err)
				}
				table := "shop_" + strings.TrimPrefix(strings.ToLower(tc.key), "shop")
				before := countRows(t, k, table)
				for _, op := range []string{"create", "update"} {
					var err error
					if op == "create" {
						_, err = k.Records(tc.key).Create(ctx, aliceA, tc.second)
					} else {
						other, cerr := k.Records(tc.key).Create(ctx, aliceA, map[string]any{"title": "other"})
						if cerr != nil {
							t.Fatal(cerr)
						}
						before++
						_, err = k.Records(tc.key).Update(ctx, aliceA, other["id"].(string), tc.second)
					}
					var ce *kit.ConstraintError
					if !errors.As(err, &ce) || ce.Field != tc.field || kit.StatusOf(err) != 409 {
						t.Errorf("%s: got %v (field %q, status %d), want a 409 naming %q", op, err, fieldOf(ce), kit.StatusOf(err), tc.field)
					}
					if got := countRows(t, k, table); got != before {
						t.Errorf("%s: rows got %d, want %d", op, got, before)
					}
				}
				if got, err := k.Records(tc.key).Get(ctx, aliceA, first["id"].(string)); err != nil || got["code"] != tc.first["code"] {
					t.Errorf("first record: got %v (%v), want it unchanged", got, err)
				}
			})
		}
	})
}

func fieldOf(ce *kit.ConstraintError) string {
	if ce == nil {
		return ""
	}
	return ce.Field
}

// TestAdminDeleteWithoutListeners checks the one-statement delete (an
// admin, no listener, a collection without order): it deletes the team's
// record and refuses, writing nothing, another team's and an unknown id.
func TestAdminDeleteWithoutListeners(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		k := newKitOn(t, e, shopDefs()...)
		ctx := context.Background()
		mine := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "mine"})
		theirs := mustCreate(t, k, productsKey, carolB, map[string]any{"title": "theirs"})
		admin := aliceA
		admin.Role = "admin"
		tests := []struct {
			name    string
			id      string
			wantErr error
			rows    int
		}{
			{"another team's record is not found and stays", theirs["id"].(string), kit.ErrNotFound, 2},
			{"an unknown id is not found", "00000000-0000-7000-8000-000000000000", kit.ErrNotFound, 2},
			{"the team's own record is deleted", mine["id"].(string), nil, 1},
			{"deleting it again is not found", mine["id"].(string), kit.ErrNotFound, 1},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				err := k.Records(productsKey).Delete(ctx, admin, tc.id)
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("got %v, want %v", err, tc.wantErr)
				}
				if got := countRows(t, k, productsTable); got != tc.rows {
					t.Errorf("rows: got %d, want %d", got, tc.rows)
				}
			})
		}
	})
}

// TestBackgroundCheckpoints checks that kit, which opens its SQLite file
// with wal_autocheckpoint(0), copies the WAL into the database file itself
// while writes go on: the database file grows as records are written.
func TestBackgroundCheckpoints(t *testing.T) {
	path := tempDBPath(t)
	k := newKitConfig(t, kit.Config{SQLitePath: path, Definitions: shopDefs()})
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	var auto int
	if err := k.DB().QueryRowContext(context.Background(), "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("wal_autocheckpoint: got %d (%v), want 0", auto, err)
	}
	before := size()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; size() <= before; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("database file: still %d bytes after %d creates, want it to grow through checkpoints", size(), i)
		}
		mustCreate(t, k, productsKey, aliceA, map[string]any{"title": strings.Repeat("x", 2000) + fmt.Sprint(i)})
		if i%50 == 49 {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// TestWritesFlushTheSearchIndexAtItsBacklogLimit checks that kit's writes
// leave new rows for a later flush of the search index until
// kit.SearchBacklog of them wait, that the write reaching the limit flushes
// them all in its transaction, and that searches find every committed
// record before and after.
func TestWritesFlushTheSearchIndexAtItsBacklogLimit(t *testing.T) {
	k := newKit(t, shopDefs()...)
	ctx := context.Background()
	fts := `"fts_` + productsTable + `_search"`
	backlog := func(t *testing.T) int {
		t.Helper()
		n, err := kit.SearchWaiting(ctx, k, productsKey)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	indexed := func(t *testing.T) int {
		t.Helper()
		var n int
		if err := k.DB().QueryRowContext(ctx, `SELECT count(*) FROM `+fts+` WHERE `+fts+` MATCH '"qua"'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var last kit.Record
	create := func(n int) func(t *testing.T) {
		return func(t *testing.T) {
			for i := range n {
				last = mustCreate(t, k, productsKey, aliceA, map[string]any{"title": fmt.Sprintf("quartz %d", i)})
			}
		}
	}
	steps := []struct {
		name         string
		do           func(t *testing.T)
		wantBacklog  int
		wantIndexed  int
		wantSearched int
	}{
		{"creates below the limit wait for the index", create(kit.SearchBacklog - 1), kit.SearchBacklog - 1, 0, kit.SearchBacklog - 1},
		{"the create reaching the limit flushes them all", create(1), 0, kit.SearchBacklog, kit.SearchBacklog},
		{"a delete after the flush waits in the change log", func(t *testing.T) {
			if err := k.Records(productsKey).Delete(ctx, aliceA, last["id"].(string)); err != nil {
				t.Fatal(err)
			}
		}, 1, kit.SearchBacklog, kit.SearchBacklog - 1},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.do(t)
			if got := backlog(t); got != st.wantBacklog {
				t.Errorf("backlog: got %d, want %d", got, st.wantBacklog)
			}
			if got := indexed(t); got != st.wantIndexed {
				t.Errorf("rows the index matches: got %d, want %d", got, st.wantIndexed)
			}
			l := mustList(t, k, productsKey, aliceA, query("search", "QUARTZ"))
			if got := l.Pagination.TotalItems; got != st.wantSearched {
				t.Errorf("records a search finds: got %d, want %d", got, st.wantSearched)
			}
			checkSearchIndex(t, k)
		})
	}
}
