package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/store"
	"github.com/collectionkit/kit/internal/testdb"
)

// TestUniqueViolationFromTheDatabaseNamesTheField inserts a duplicate
// straight through Insert (no pre-check), as a lost race would, and
// expects the database's own unique violation to come back as a 409 that
// names the field, on every engine.
func TestUniqueViolationFromTheDatabaseNamesTheField(t *testing.T) {
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		db := testdb.Open(t, e)
		reg, _, err := collections.Build([]collections.Definition{{Name: "products", Layer: "shop", Fields: []collections.Field{
			{Name: "sku", Type: collections.TypeString, Meta: collections.FieldMeta{Unique: true}},
		}}}, collections.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := store.New(db, func() *collections.Registry { return reg })
		if err := store.CreateMetaTable(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(t.Context(), reg, store.SyncOptions{}); err != nil {
			t.Fatal(err)
		}
		c, _ := reg.Get("shopProducts")
		rec := func(id string) store.Record {
			return store.Record{"id": id, "teamId": "t1", "owner": "u1", "sku": "A-1", "createdAt": nowUTC(), "updatedAt": nowUTC(), "createdBy": "u1", "updatedBy": "u1"}
		}
		if err := s.Insert(t.Context(), db, c, rec("one")); err != nil {
			t.Fatal(err)
		}
		err = s.Insert(t.Context(), db, c, rec("two"))
		var ce *store.ConstraintError
		if !errors.As(err, &ce) {
			t.Fatalf("got %v, want a *ConstraintError", err)
		}
		if ce.HTTPStatus() != 409 || ce.Kind != "unique" {
			t.Errorf("got kind %q status %d, want unique 409", ce.Kind, ce.HTTPStatus())
		}
		// Engine difference: PostgreSQL's error carries the violated
		// index's name, from which the field is named without string
		// matching. SQLite's carries only the extended code (2067), so the
		// field stays unnamed here; through kit the in-transaction
		// pre-check names it, and SQLite's serialized writers
		// (_txlock=immediate) cannot race past that check.
		if e == testdb.EnginePostgres && ce.Field != "sku" {
			t.Errorf("field: got %q, want %q", ce.Field, "sku")
		}
	})
}

func nowUTC() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
