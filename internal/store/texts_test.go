package store

import (
	"testing"

	"github.com/collectionkit/kit/collections"
)

// TestRecordTextsAreTheTextsTheirBuildersMake checks the memo of record
// texts: each text is what its builder makes for the collection, a
// second collection gets its own, a probe's texts follow the probe asked
// for, and a full memo starts over instead of growing.
func TestRecordTextsAreTheTextsTheirBuildersMake(t *testing.T) {
	s, c := searchFixture(t)
	reg, _, err := collections.Build([]collections.Definition{{
		Name: "orders", Layer: "shop",
		Fields: []collections.Field{{Name: "note", Type: collections.TypeText}},
	}}, collections.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := reg.Get("shopOrders")
	for _, col := range []*collections.Collection{c, other} {
		checks := []struct {
			name, got, want string
		}{
			{"the get", s.getText(col, ""), s.getSQL(col)},
			{"the get with a probe", s.getText(col, ", 7 AS probe"), s.getSQLWith(col, ", 7 AS probe")},
			{"the get with another probe", s.getText(col, ", 8 AS probe"), s.getSQLWith(col, ", 8 AS probe")},
			{"the read by ids", s.getManyText(col, ""), s.getManySQL(col, "")},
			{"the read by ids with a probe", s.getManyText(col, ", 8 AS probe"), s.getManySQL(col, ", 8 AS probe")},
			{"the insert", s.textsOf(col).insert, s.insertSQL(col)},
			{"the delete", s.textsOf(col).delete, s.deleteSQL(col)},
			{"the search backlog", s.textsOf(col).backlog, searchBacklogSQL(col)},
		}
		for _, ch := range checks {
			t.Run(col.Key()+" "+ch.name+" is its builder's text", func(t *testing.T) {
				if ch.got != ch.want {
					t.Errorf("got %q, want %q", ch.got, ch.want)
				}
			})
		}
	}
	if got := len(s.texts.m); got != 2 {
		t.Errorf("memoized collections: got %d, want 2", got)
	}
	t.Run("a full memo starts over", func(t *testing.T) {
		for range maxTexts {
			dup := *other
			s.textsOf(&dup)
		}
		if got := len(s.texts.m); got > maxTexts {
			t.Errorf("memoized collections: got %d, want at most %d", got, maxTexts)
		}
		if got, want := s.getText(c, ""), s.getSQL(c); got != want {
			t.Errorf("get after the memo started over: got %q, want %q", got, want)
		}
	})
}
