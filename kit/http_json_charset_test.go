package kit_test

import "testing"

// TestARecordBodyInACharsetOtherThanUTF8IsA415 checks the charset rule of
// the record routes' bodies: JSON is UTF-8, so a body declared in another
// charset is refused before it is read, and nothing is written.
func TestARecordBodyInACharsetOtherThanUTF8IsA415(t *testing.T) {
	t.Parallel()
	runScenarios(t, []scenario{
		{name: "a create declared as UTF-16 is a 415", method: "POST", path: products, caller: "mia", body: `{"title":"a"}`,
			contentType: "application/json; charset=utf-16", status: 415, contains: []string{`"status":415`, "UTF-8"}},
		{name: "an update declared as Latin-1 is a 415", method: "PATCH", path: products + "/{miaProduct}", caller: "mia", body: `{"title":"a"}`,
			contentType: "application/json; charset=iso-8859-1", status: 415},
		{name: "a +json type declared as UTF-16 is a 415", method: "POST", path: products, caller: "mia", body: `{"title":"a"}`,
			contentType: "application/merge-patch+json; charset=UTF-16LE", status: 415},
		{name: "an empty charset is a 415", method: "POST", path: products, caller: "mia", body: `{"title":"a"}`,
			contentType: `application/json; charset=""`, status: 415},
		{name: "charset=utf-8 in any case is read", method: "POST", path: products, caller: "mia", body: `{"title":"a"}`,
			contentType: "application/json; charset=UTF-8", status: 201, hooks: 1, rows: 1},
		{name: "no charset is read as UTF-8", method: "POST", path: products, caller: "mia", body: `{"title":"a"}`,
			status: 201, hooks: 1, rows: 1},
	})
}
