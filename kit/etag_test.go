package kit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

func TestETagOfStoredRecords(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Parallel()
		k := newKitOn(t, e, specimensDef())
		recs := k.Records(specimensKey)
		full := map[string]any{
			"label": "S-1", "notes": "line\nbreak <&>", "weight": 12.5, "price": "1234.5", "isFragile": true,
			"collectedAt": "2026-03-04T05:06:07.123456789+02:00", "attributes": map[string]any{"b": 1.50, "a": []any{"x", nil, true}},
			"measurements": []any{map[string]any{"at": 1, "value": -0.25}}, "tags": []any{"z", "a"}, "photo": "p.png", "report": "r.pdf",
		}
		for _, tc := range []struct {
			name string
			data map[string]any
		}{
			{"every field type set", full},
			{"every field empty", map[string]any{}},
		} {
			t.Run("a created record with "+tc.name+" has the ETag of the record read back", func(t *testing.T) {
				created, err := recs.Create(t.Context(), aliceA, tc.data)
				if err != nil {
					t.Fatal(err)
				}
				got, want := kit.ETag(created), kit.ETag(mustGet(t, k, specimensKey, aliceA, created["id"].(string)))
				if got != want {
					t.Errorf("ETag of the create's answer: got %s, want the stored record's %s", got, want)
				}
				updated, err := recs.Update(t.Context(), aliceA, created["id"].(string), full)
				if err != nil {
					t.Fatal(err)
				}
				got, want = kit.ETag(updated), kit.ETag(mustGet(t, k, specimensKey, aliceA, created["id"].(string)))
				if got != want {
					t.Errorf("ETag of the update's answer: got %s, want the stored record's %s", got, want)
				}
			})
		}
	})
}

func TestConditionalRecordAPI(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Parallel()
		// No mutation listener: an admin's delete takes the one-statement
		// path, which a condition must not skip.
		k := newKitOn(t, e, shopDefs()...)
		recs := k.Records(productsKey)
		newProduct := func(t *testing.T) (id, stale, current string) {
			t.Helper()
			rec := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Lamp"})
			id, stale = rec["id"].(string), kit.ETag(rec)
			rec, err := recs.Update(t.Context(), aliceA, id, map[string]any{"title": "Lamp 2"})
			if err != nil {
				t.Fatal(err)
			}
			return id, stale, kit.ETag(rec)
		}
		wantPrecondition := func(t *testing.T, err error, current string) {
			t.Helper()
			var pe *kit.PreconditionError
			if !errors.Is(err, kit.ErrPrecondition) || !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *PreconditionError matching ErrPrecondition", err)
			}
			if pe.ETag != current || kit.ETag(pe.Current) != current {
				t.Errorf("got ETag %s and a record of ETag %s, want the current %s for both", pe.ETag, kit.ETag(pe.Current), current)
			}
			if got := kit.StatusOf(err); got != 412 {
				t.Errorf("status: got %d, want 412", got)
			}
		}
		for _, tc := range []struct {
			name    string
			ifMatch func(stale, current string) []string
			applied bool
		}{
			{"the current ETag", func(_, cur string) []string { return []string{cur} }, true},
			{"a list holding the current ETag", func(stale, cur string) []string { return []string{stale, cur} }, true},
			{"*", func(_, _ string) []string { return []string{"*"} }, true},
			{"no list at all (unconditional)", func(_, _ string) []string { return nil }, true},
			{"a stale ETag", func(stale, _ string) []string { return []string{stale} }, false},
			{"the current ETag made weak", func(_, cur string) []string { return []string{"W/" + cur} }, false},
			{"an empty list", func(_, _ string) []string { return []string{} }, false},
		} {
			t.Run("UpdateWith "+tc.name, func(t *testing.T) {
				id, stale, current := newProduct(t)
				rec, err := recs.UpdateWith(t.Context(), aliceA, id, map[string]any{"title": "Lamp 3"}, kit.WriteOptions{IfMatch: tc.ifMatch(stale, current)})
				title := mustGet(t, k, productsKey, aliceA, id)["title"]
				if !tc.applied {
					wantPrecondition(t, err, current)
					if title != "Lamp 2" {
						t.Errorf("title: got %v, want the unchanged Lamp 2", title)
					}
					return
				}
				if err != nil || title != "Lamp 3" || rec["title"] != "Lamp 3" {
					t.Errorf("got %v, %v and stored %v, want Lamp 3", rec, err, title)
				}
			})
			t.Run("an admin's DeleteWith "+tc.name, func(t *testing.T) {
				id, stale, current := newProduct(t)
				err := recs.DeleteWith(t.Context(), adminA, id, kit.WriteOptions{IfMatch: tc.ifMatch(stale, current)})
				_, getErr := recs.Get(t.Context(), aliceA, id)
				if !tc.applied {
					wantPrecondition(t, err, current)
					if getErr != nil {
						t.Errorf("get after the refused delete: got %v, want the record", getErr)
					}
					return
				}
				if err != nil || !errors.Is(getErr, kit.ErrNotFound) {
					t.Errorf("got %v and a get answering %v, want nil and ErrNotFound", err, getErr)
				}
			})
		}
		t.Run("a condition on another team's record is ErrNotFound, not a precondition failure", func(t *testing.T) {
			id, stale, _ := newProduct(t)
			_, err := recs.UpdateWith(t.Context(), carolB, id, map[string]any{"title": "x"}, kit.WriteOptions{IfMatch: []string{stale}})
			if !errors.Is(err, kit.ErrNotFound) || errors.Is(err, kit.ErrPrecondition) {
				t.Errorf("got %v, want ErrNotFound", err)
			}
		})
	})
}

func TestConditionalMove(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Parallel()
		tk := newTreeKit(t, e)
		tk.seedTree(t)
		folders := tk.k.Records(foldersKey)
		node := func(t *testing.T, title string) kit.Record {
			t.Helper()
			recs, err := folders.GetMany(t.Context(), treeMia, []string{tk.id(t, title)})
			if err != nil || len(recs) != 1 {
				t.Fatalf("get %s: %v, %d records", title, err, len(recs))
			}
			return recs[0]
		}
		t.Run("MoveWith a stale ETag moves nothing and fires no hook", func(t *testing.T) {
			stale := kit.ETag(node(t, "a2"))
			if _, err := folders.Update(t.Context(), treeMia, tk.id(t, "a2"), map[string]any{"title": "a2 renamed"}); err != nil {
				t.Fatal(err)
			}
			tk.reset()
			current := kit.ETag(node(t, "a2"))
			_, err := folders.MoveWith(t.Context(), treeMia, tk.id(t, "a2"), nil, 0, kit.WriteOptions{IfMatch: []string{stale}})
			wantErr := &kit.PreconditionError{}
			if !errors.As(err, &wantErr) || wantErr.ETag != current {
				t.Fatalf("got %v, want a *PreconditionError with the current ETag %s", err, current)
			}
			if got := kit.ETag(node(t, "a2")); got != current {
				t.Errorf("ETag of a2 after the refused move: got %s, want the unchanged %s", got, current)
			}
			if tx, after := tk.counts(); tx != 0 || after != 0 {
				t.Errorf("hooks: got %d in tx and %d after commit, want none", tx, after)
			}
		})
		t.Run("MoveWith the current ETag moves the node", func(t *testing.T) {
			current := kit.ETag(node(t, "a2"))
			moved, err := folders.MoveWith(t.Context(), treeMia, tk.id(t, "a2"), nil, 0, kit.WriteOptions{IfMatch: []string{current}})
			if err != nil {
				t.Fatal(err)
			}
			if moved["parentId"] != nil || kit.ETag(moved) != kit.ETag(node(t, "a2")) {
				t.Errorf("got %v, want a root whose ETag is the stored record's", moved)
			}
		})
	})
}

// TestConditionalUpdateWaitsForTheWriteItChecksAgainst holds one
// conditional update inside its transaction (in a mutation listener) and
// starts a second with the same ETag; once the second waits (PostgreSQL:
// on the row lock; SQLite: in the write queue), the first commits. The
// second must see the first's record and be refused: a check that read the
// row without locking it would pass and overwrite the first's change.
func TestConditionalUpdateWaitsForTheWriteItChecksAgainst(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Parallel()
		k := newKitOn(t, e, shopDefs()...)
		inHook, release := make(chan struct{}), make(chan struct{})
		k.OnMutationTx(func(ctx context.Context, tx bun.Tx, m *kit.Mutation) error {
			if m.Updates["title"] == "first" {
				close(inHook)
				<-release
			}
			return nil
		})
		recs := k.Records(productsKey)
		rec := mustCreate(t, k, productsKey, aliceA, map[string]any{"title": "Lamp"})
		id, etag := rec["id"].(string), kit.ETag(rec)
		cond := kit.WriteOptions{IfMatch: []string{etag}}

		type result struct {
			rec kit.Record
			err error
		}
		first, second := make(chan result, 1), make(chan result, 1)
		go func() {
			r, err := recs.UpdateWith(context.Background(), aliceA, id, map[string]any{"title": "first"}, cond)
			first <- result{r, err}
		}()
		<-inHook
		go func() {
			// As a request's actor: queued behind the first update, an
			// in-memory database's reads wait for the writer.
			r, err := recs.UpdateWith(context.Background(), kit.ActorOfARequest(adminA), id, map[string]any{"title": "second"}, cond)
			second <- result{r, err}
		}()
		waitUntil(t, "the second update waits for the first", func() bool {
			if !isPostgres(k) {
				return kit.QueuedWrites(k) > 0
			}
			var n int
			// A session of this test's schema waiting for a lock while it
			// holds one on the products table: the second update (its
			// statement is prepared, so the id is not in its text).
			err := k.DB().QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity a
				WHERE a.wait_event_type = 'Lock' AND a.pid <> pg_backend_pid()
				AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.relation = 'shop_products'::regclass)`).Scan(&n)
			if err != nil {
				t.Fatal(err)
			}
			return n > 0
		})
		close(release)
		a, b := <-first, <-second
		if a.err != nil {
			t.Fatalf("first update: %v", a.err)
		}
		var pe *kit.PreconditionError
		if !errors.As(b.err, &pe) {
			t.Fatalf("second update: got %v (stored %v), want a *PreconditionError", b.err, b.rec)
		}
		if pe.ETag != kit.ETag(a.rec) || pe.Current["title"] != "first" {
			t.Errorf("412: got ETag %s with title %v, want the first update's %s with title first", pe.ETag, pe.Current["title"], kit.ETag(a.rec))
		}
		if got := mustGet(t, k, productsKey, aliceA, id)["title"]; got != "first" {
			t.Errorf("stored title: got %v, want first", got)
		}
	})
}

// waitUntil polls cond until it holds, failing t after a generous bound.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
