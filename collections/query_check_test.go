package collections

import (
	"testing"
)

func TestCheckListQueryCompletesAQueryBuiltInGo(t *testing.T) {
	reg, _, err := Build([]Definition{{Name: "books", Fields: []Field{
		{Name: "title", Type: TypeString},
		{Name: "pages", Type: TypeNumber},
	}, Config: &Config{DefaultPagination: &Pagination{PageSize: 5, SortBy: "title", SortDirection: "desc"}}}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := reg.All()[0]
	title, _ := c.Attribute("title")
	pages, _ := c.Attribute("pages")
	sortNames := func(keys []SortKey) string {
		s := ""
		for _, k := range keys {
			if s != "" {
				s += ","
			}
			if k.Desc {
				s += "-"
			}
			s += k.Attr.Name
		}
		return s
	}
	tests := []struct {
		name     string
		q        ListQuery
		page     int
		pageSize int
		sort     string
	}{
		{"the zero query takes the collection's defaultPagination", ListQuery{}, 1, 5, "-title,-id"},
		{"a page and page size of its own", ListQuery{Page: 3, PageSize: 50}, 3, 50, "-title,-id"},
		{"a sort of its own ends with id", ListQuery{Sort: []SortKey{{Attr: pages}}}, 1, 5, "pages,id"},
		{"a sort that names id keeps it where it is", ListQuery{Sort: []SortKey{{Attr: c.attrs["id"], Desc: true}, {Attr: title}}}, 1, 5, "-id,title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.CheckListQuery(tt.q, QueryLimits{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Page != tt.page || got.PageSize != tt.pageSize || sortNames(got.Sort) != tt.sort {
				t.Errorf("got page %d, size %d, sort %s; want %d, %d, %s", got.Page, got.PageSize, sortNames(got.Sort), tt.page, tt.pageSize, tt.sort)
			}
		})
	}
	t.Run("values are made canonical and ids trimmed once each", func(t *testing.T) {
		got, err := c.CheckListQuery(ListQuery{Search: " Dune\u0301 ", IDs: []string{" a", "b", "a "},
			Filter: []Condition{{Attr: pages, Op: OpIn, Value: []int{100, 200}}, {Attr: title, Op: OpNe, Value: nil}}}, QueryLimits{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Search != "Dun\u00e9" {
			t.Errorf("Search: got %q, want it trimmed and in NFC", got.Search)
		}
		if len(got.IDs) != 2 || got.IDs[0] != "a" || got.IDs[1] != "b" {
			t.Errorf("IDs: got %q, want [a b]", got.IDs)
		}
		in, ok := got.Filter[0].Value.([]any)
		if !ok || len(in) != 2 || in[0] != float64(100) || in[1] != float64(200) {
			t.Errorf("in: got %#v, want []any{100.0, 200.0}", got.Filter[0].Value)
		}
		if got.Filter[1].Op != OpIsNull || got.Filter[1].Value != false {
			t.Errorf("ne nil: got %s %v, want isNull false", got.Filter[1].Op, got.Filter[1].Value)
		}
		if got.Filter[0].Attr != pages {
			t.Error("in: got another attribute than the collection's own")
		}
	})
}
