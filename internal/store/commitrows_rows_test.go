package store

import (
	"reflect"
	"testing"
	"time"

	"github.com/uptrace/bun"
)

// plainRow has a field of every kind the one-row INSERT binds itself.
type plainRow struct {
	bun.BaseModel `bun:"table:test_plain_rows"`
	ID            string    `bun:"id,pk,type:varchar(36)"`
	At            time.Time `bun:"at,notnull"`
	N             int64     `bun:"n,notnull"`
	F             float64   `bun:"f,notnull"`
	On            bool      `bun:"on,notnull"`
	Text          string    `bun:"text,notnull,type:text"`
}

// TestOneRowInsertsWriteWhatBunWrites checks the prepared one-row INSERT
// of commit rows against bun's own: the same row inserted both ways reads
// back as the same stored values (times as bun's text, in UTC), and a
// model with a field that bun writes otherwise (a pointer, nullzero, a
// default, a map as JSON) is left to bun.
func TestOneRowInsertsWriteWhatBunWrites(t *testing.T) {
	s, _ := searchFixture(t)
	ctx := t.Context()
	if _, err := s.db.NewCreateTable().Model((*plainRow)(nil)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 28, 13, 4, 5, 123456789, time.FixedZone("CET", 3600))
	byBun := []plainRow{{ID: "bun", At: at, N: -7, F: 2.5, On: true, Text: "it's ü"}}
	if _, err := s.db.NewInsert().Model(&byBun).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	mine := []plainRow{{ID: "mine", At: at, N: -7, F: 2.5, On: true, Text: "it's ü"}}
	ri := s.rowInserts.of(s.db, reflect.TypeOf(&mine))
	if ri == nil {
		t.Fatal("the plain model got no one-row INSERT")
	}
	args, err := ri.args(reflect.ValueOf(mine[0]), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.exec(ctx, s.db, ri.query, args...); err != nil {
		t.Fatal(err)
	}
	stored := func(id string) []string {
		var vals []string
		row := s.db.QueryRowContext(ctx, `SELECT quote(at), quote(n), quote(f), quote("on"), quote(text) FROM test_plain_rows WHERE id = ?`, id)
		v := make([]string, 5)
		if err := row.Scan(&v[0], &v[1], &v[2], &v[3], &v[4]); err != nil {
			t.Fatal(err)
		}
		return append(vals, v...)
	}
	if got, want := stored("mine"), stored("bun"); !reflect.DeepEqual(got, want) {
		t.Errorf("stored values: got %q, want bun's %q", got, want)
	}

	type pointerRow struct {
		bun.BaseModel `bun:"table:test_pointer_rows"`
		ID            *string `bun:"id,pk"`
	}
	type nullZeroRow struct {
		bun.BaseModel `bun:"table:test_null_rows"`
		ID            string `bun:"id,pk,nullzero"`
	}
	type defaultRow struct {
		bun.BaseModel `bun:"table:test_default_rows"`
		ID            string `bun:"id,pk,default:'x'"`
	}
	type jsonRow struct {
		bun.BaseModel `bun:"table:test_json_rows"`
		ID            string         `bun:"id,pk"`
		Meta          map[string]any `bun:"meta"`
	}
	for _, tc := range []struct {
		name  string
		model any
	}{
		{"a pointer field", &[]pointerRow{}},
		{"a nullzero field", &[]nullZeroRow{}},
		{"a field with a default", &[]defaultRow{}},
		{"a map written as JSON", &[]jsonRow{}},
	} {
		t.Run("a model with "+tc.name+" is left to bun", func(t *testing.T) {
			if ri := s.rowInserts.of(s.db, reflect.TypeOf(tc.model)); ri != nil {
				t.Errorf("got the one-row INSERT %q, want none", ri.query)
			}
		})
	}
}
