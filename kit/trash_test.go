package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/collectionkit/kit/internal/testdb"
	"github.com/collectionkit/kit/kit"
)

const (
	deskTasks   = "/api/teams/acme/desk-tasks"
	deskCats    = "/api/teams/acme/desk-categories"
	deskFolders = "/api/teams/acme/desk-folders"
)

func TestTrashRoutes(t *testing.T) {
	t.Parallel()
	type step struct{ caller, method, path, body string }
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		scenarios := []struct {
			name   string
			setup  []step
			caller string
			method string
			path   string
			body   string
			status int
			// contains are expected in the answer.
			contains []string
			// unchanged: the request writes nothing (rows and trash).
			unchanged bool
			// check runs after the request.
			check func(t *testing.T, d *desk, body string)
		}{
			{name: "a delete moves the record to the trash: gets, lists and counts no longer see it",
				caller: "mia", method: "DELETE", path: deskTasks + "/{miaItem}", status: 204,
				check: func(t *testing.T, d *desk, _ string) {
					if n := d.total(t, deskTasks, "mia"); n != 1 {
						t.Errorf("got %d items listed, want 1 (max's)", n)
					}
					if res := d.do(t, "GET", deskTasks+"?ids={miaItem}", "mia", ""); strings.TrimSpace(res.body) != "[]" {
						t.Errorf("got %s for ?ids= of the trashed record, want []", res.body)
					}
					if n := d.count(t, "kit_trash"); n != 1 {
						t.Errorf("got %d trash rows, want 1", n)
					}
					if res := d.do(t, "GET", deskTasks+"/trash", "max", ""); !strings.Contains(res.body, d.site.Expand(`"id":"{miaItem}"`)) ||
						!strings.Contains(res.body, `"totalItems":1`) || !strings.Contains(res.body, `"sku":"MIA-1"`) {
						t.Errorf("got trash %s, want mia's item with its data", res.body)
					}
				}},
			{name: "a record referenced by others is refused as before, and nothing goes to the trash",
				caller: "alice", method: "DELETE", path: deskCats + "/{acmeCategory}", status: 409, unchanged: true,
				contains: []string{"referencedBy"}},
			{name: "a restore puts the record back with the same id, owner and values",
				setup:  []step{{"mia", "DELETE", deskTasks + "/{miaItem}", ""}},
				caller: "mia", method: "POST", path: deskTasks + "/{miaItem}/restore", status: 200,
				contains: []string{`"id":"{miaItem}"`, `"owner":"{mia}"`, `"sku":"MIA-1"`, `"price":"9.99"`, `"stock":3`, `"isActive":true`,
					`"dueAt":"2026-12-01T00:00:00Z"`, `"categoryId":"{acmeCategory}"`},
				check: func(t *testing.T, d *desk, _ string) {
					if n := d.total(t, deskTasks, "mia"); n != 2 {
						t.Errorf("got %d items listed, want 2", n)
					}
					if n := d.count(t, "kit_trash"); n != 0 {
						t.Errorf("got %d trash rows, want 0", n)
					}
					if res := d.do(t, "GET", deskTasks+"?ids={miaItem}", "mia", ""); !strings.Contains(res.body, "MIA-1") {
						t.Errorf("got %s, want the restored record", res.body)
					}
				}},
			{name: "a team owner restores a member's record",
				setup:  []step{{"max", "DELETE", deskTasks + "/{maxItem}", ""}},
				caller: "alice", method: "POST", path: deskTasks + "/{maxItem}/restore", status: 200,
				contains: []string{`"owner":"{max}"`}},
			{name: "restoring a record whose referenced record is gone is a 400 naming the field; it stays in the trash",
				setup: []step{
					{"mia", "DELETE", deskTasks + "/{miaItem}", ""},
					{"mia", "DELETE", deskCats + "/{acmeCategory}", ""}},
				caller: "mia", method: "POST", path: deskTasks + "/{miaItem}/restore", status: 400, unchanged: true,
				contains: []string{`"categoryId":"refers to no deskCategories record of this team"`}},
			{name: "restoring the referenced record first makes the restore go through",
				setup: []step{
					{"mia", "DELETE", deskTasks + "/{miaItem}", ""},
					{"mia", "DELETE", deskCats + "/{acmeCategory}", ""},
					{"mia", "POST", deskCats + "/{acmeCategory}/restore", ""}},
				caller: "mia", method: "POST", path: deskTasks + "/{miaItem}/restore", status: 200},
			{name: "restoring a record whose unique value was taken since is a 409 naming the field; it stays in the trash",
				setup: []step{
					{"mia", "DELETE", deskTasks + "/{miaItem}", ""},
					{"mia", "POST", deskTasks, `{"title":"new","sku":"MIA-1"}`}},
				caller: "mia", method: "POST", path: deskTasks + "/{miaItem}/restore", status: 409, unchanged: true,
				contains: []string{"sku"}},
			{name: "restoring a record of another team's trash is a 404, as a missing one",
				setup:  []step{{"gina", "DELETE", "/api/teams/globex/desk-tasks/{ginaItem}", ""}},
				caller: "alice", method: "POST", path: deskTasks + "/{ginaItem}/restore", status: 404, unchanged: true,
				contains: []string{`"status":404`}},
			{name: "restoring a record that is not in the trash is a 404",
				caller: "mia", method: "POST", path: deskTasks + "/{miaItem}/restore", status: 404, unchanged: true},
			{name: "a member may not restore a teammate's record: 403",
				setup:  []step{{"max", "DELETE", deskTasks + "/{maxItem}", ""}},
				caller: "mia", method: "POST", path: deskTasks + "/{maxItem}/restore", status: 403, unchanged: true},
			{name: "a restored tree node whose parent is gone is a 400 naming the parent",
				setup: []step{
					{"mia", "DELETE", deskFolders + "/{childFolder}", ""},
					{"mia", "DELETE", deskFolders + "/{rootFolder}", ""}},
				caller: "mia", method: "POST", path: deskFolders + "/{childFolder}/restore", status: 400, unchanged: true,
				contains: []string{`"parentId"`}},
			{name: "a restored tree node goes back under its parent",
				setup:  []step{{"mia", "DELETE", deskFolders + "/{childFolder}", ""}},
				caller: "mia", method: "POST", path: deskFolders + "/{childFolder}/restore", status: 200,
				contains: []string{`"parentId":"{rootFolder}"`, `"path":"/{rootFolder}/{childFolder}/"`, `"depth":1`, `"order":0`}},
			{name: "a purge removes the record from the trash for good",
				setup:  []step{{"mia", "DELETE", deskTasks + "/{miaItem}", ""}},
				caller: "mia", method: "DELETE", path: deskTasks + "/{miaItem}/trash", status: 204,
				check: func(t *testing.T, d *desk, _ string) {
					if n := d.count(t, "kit_trash"); n != 0 {
						t.Errorf("got %d trash rows, want 0", n)
					}
					if res := d.do(t, "POST", deskTasks+"/{miaItem}/restore", "mia", ""); res.status != 404 {
						t.Errorf("got %d restoring a purged record, want 404", res.status)
					}
				}},
			{name: "purging a record of another team's trash is a 404",
				setup:  []step{{"gina", "DELETE", "/api/teams/globex/desk-tasks/{ginaItem}", ""}},
				caller: "alice", method: "DELETE", path: deskTasks + "/{ginaItem}/trash", status: 404, unchanged: true},
			{name: "a member may not purge a teammate's record: 403",
				setup:  []step{{"max", "DELETE", deskTasks + "/{maxItem}", ""}},
				caller: "mia", method: "DELETE", path: deskTasks + "/{maxItem}/trash", status: 403, unchanged: true},
			{name: "a bulk delete moves every record to the trash",
				caller: "alice", method: "DELETE", path: deskTasks + "?ids={miaItem},{maxItem}", status: 204,
				check: func(t *testing.T, d *desk, _ string) {
					if n := d.count(t, "kit_trash"); n != 2 {
						t.Errorf("got %d trash rows, want 2", n)
					}
				}},
			{name: "the trash of another team is not listed",
				setup:  []step{{"gina", "DELETE", "/api/teams/globex/desk-tasks/{ginaItem}", ""}},
				caller: "alice", method: "GET", path: deskTasks + "/trash", status: 200,
				contains: []string{`"items":[]`, `"totalItems":0`}},
			{name: "a collection without softDelete deletes for good and has no trash: 404",
				setup:  []step{{"mia", "DELETE", "/api/teams/acme/desk-notes/{miaNote}", ""}},
				caller: "mia", method: "GET", path: "/api/teams/acme/desk-notes/trash", status: 404,
				contains: []string{"keeps no trash"},
				check: func(t *testing.T, d *desk, _ string) {
					if n := d.count(t, "kit_trash"); n != 0 {
						t.Errorf("got %d trash rows, want 0", n)
					}
				}},
			{name: "a bad page size of the trash list is a 400 naming it",
				caller: "mia", method: "GET", path: deskTasks + "/trash?pageSize=0", status: 400,
				contains: []string{`"param":"pageSize"`}},
			{name: "a caller of another team may not read the trash",
				caller: "gina", method: "GET", path: deskTasks + "/trash", status: 403},
			{name: "an anonymous caller may not restore",
				setup:  []step{{"mia", "DELETE", deskTasks + "/{miaItem}", ""}},
				method: "POST", path: deskTasks + "/{miaItem}/restore", status: 401, unchanged: true},
		}
		for _, sc := range scenarios {
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel()
				d := newDesk(t, e)
				for _, s := range sc.setup {
					if res := d.do(t, s.method, s.path, s.caller, s.body); res.status >= 300 {
						t.Fatalf("setup %s %s: got %d %s", s.method, s.path, res.status, res.body)
					}
				}
				before := d.snapshot(t)
				res := d.do(t, sc.method, sc.path, sc.caller, sc.body)
				if res.status != sc.status {
					t.Fatalf("got %d %s, want %d", res.status, res.body, sc.status)
				}
				for _, s := range sc.contains {
					if want := d.site.Expand(s); !strings.Contains(res.body, want) {
						t.Errorf("got body %s, want it to contain %s", res.body, want)
					}
				}
				if after := d.snapshot(t); sc.unchanged && !maps.Equal(after, before) {
					t.Errorf("got rows changed by a refused request:\nbefore %v\nafter  %v", before, after)
				}
				if sc.check != nil {
					sc.check(t, d, res.body)
				}
			})
		}
	})
}

// TestTrashChanges checks the change log and the mutation payloads of a
// trash, a restore and a purge.
func TestTrashChanges(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		d := newDesk(t, e)
		var seen []kit.Mutation
		d.k.OnMutation(func(_ context.Context, m kit.Mutation) { seen = append(seen, m) })
		steps := []struct{ method, path string }{
			{"DELETE", deskTasks + "/{miaItem}"},
			{"POST", deskTasks + "/{miaItem}/restore"},
			{"DELETE", deskTasks + "/{miaItem}"},
			{"DELETE", deskTasks + "/{miaItem}/trash"},
		}
		for _, s := range steps {
			if res := d.do(t, s.method, s.path, "mia", ""); res.status >= 300 {
				t.Fatalf("%s %s: got %d %s", s.method, s.path, res.status, res.body)
			}
		}
		ops := d.changeOps(t)
		want := []string{"delete", "restore", "delete", "purge"}
		if len(ops) < 4 || !slices.Equal(ops[len(ops)-4:], want) {
			t.Errorf("got change log %v, want it to end with %v", ops, want)
		}
		if len(seen) != 4 {
			t.Fatalf("got %d mutations, want 4", len(seen))
		}
		if m := seen[0]; m.Operation != kit.OpDelete || !m.Trashed {
			t.Errorf("got %+v, want a delete marked Trashed", m)
		}
		if m := seen[1]; m.Operation != kit.OpRestore || m.ItemID != d.ids["miaItem"] || m.Data["sku"] != "MIA-1" {
			t.Errorf("got %+v, want a restore of mia's item with its data", m)
		}
		if m := seen[3]; m.Operation != kit.OpPurge || !slices.Equal(m.ItemIDs, []string{d.ids["miaItem"]}) {
			t.Errorf("got %+v, want a purge of mia's item", m)
		}
	})
}

// TestTrashRetention purges the entries older than the retention, in Go
// and from the periodic loop.
func TestTrashRetention(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		t.Run("PurgeExpiredTrash purges only the entries deleted before the cutoff", func(t *testing.T) {
			d := newDesk(t, e, func(c *kit.Config) { c.Trash.NoPurge = true })
			for _, p := range []string{deskTasks + "/{miaItem}", deskTasks + "/{maxItem}"} {
				if res := d.do(t, "DELETE", p, "alice", ""); res.status != 204 {
					t.Fatalf("got %d %s", res.status, res.body)
				}
			}
			old := time.Now().Add(-31 * 24 * time.Hour).UTC()
			if _, err := d.k.DB().NewUpdate().Table("kit_trash").Set("deleted_at = ?", old).Where("id = ?", d.ids["miaItem"]).Exec(t.Context()); err != nil {
				t.Fatal(err)
			}
			var seen []kit.Mutation
			d.k.OnMutation(func(_ context.Context, m kit.Mutation) { seen = append(seen, m) })
			n, err := d.k.PurgeExpiredTrash(t.Context(), time.Now().Add(-30*24*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if n != 1 || d.count(t, "kit_trash") != 1 {
				t.Errorf("got %d purged, %d left; want 1 and 1", n, d.count(t, "kit_trash"))
			}
			if len(seen) != 1 || seen[0].Operation != kit.OpPurge || seen[0].ItemID != d.ids["miaItem"] || seen[0].UserID != "" {
				t.Errorf("got %+v, want one purge of mia's item by no user", seen)
			}
			if ops := d.changeOps(t); ops[len(ops)-1] != "purge" {
				t.Errorf("got change log %v, want a purge last", ops)
			}
		})
		t.Run("the retention loop purges expired entries by itself", func(t *testing.T) {
			d := newDesk(t, e, func(c *kit.Config) {
				c.Trash = kit.TrashConfig{Retention: time.Millisecond, PurgeInterval: 20 * time.Millisecond}
			})
			if res := d.do(t, "DELETE", deskTasks+"/{miaItem}", "mia", ""); res.status != 204 {
				t.Fatalf("got %d %s", res.status, res.body)
			}
			deadline := time.Now().Add(10 * time.Second)
			for d.count(t, "kit_trash") != 0 {
				if time.Now().After(deadline) {
					t.Fatal("got the entry still in the trash after 10 s, want it purged")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	})
}

func TestTrashInGo(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, e testdb.Engine) {
		d := newDesk(t, e)
		ctx := t.Context()
		mia := kit.Actor{UserID: d.ids["mia"], TeamID: d.ids["acme"]}
		items := d.k.Records("deskTasks")
		if err := items.Delete(ctx, mia, d.ids["miaItem"]); err != nil {
			t.Fatal(err)
		}
		t.Run("Trash lists the record with who deleted it", func(t *testing.T) {
			page, err := items.Trash(ctx, mia, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 1 || page.Items[0].ID != d.ids["miaItem"] || page.Items[0].DeletedBy != d.ids["mia"] || page.Items[0].DeletedAt.IsZero() {
				t.Fatalf("got %+v, want mia's item deleted by mia", page.Items)
			}
		})
		t.Run("Get of a trashed record is ErrNotFound", func(t *testing.T) {
			if _, err := items.Get(ctx, mia, d.ids["miaItem"]); !errors.Is(err, kit.ErrNotFound) {
				t.Fatalf("got %v, want ErrNotFound", err)
			}
		})
		t.Run("Restore keeps the creation metadata", func(t *testing.T) {
			rec, err := items.Restore(ctx, mia, d.ids["miaItem"])
			if err != nil {
				t.Fatal(err)
			}
			got, err := items.Get(ctx, mia, d.ids["miaItem"])
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(got)
			want, _ := json.Marshal(rec)
			if string(raw) != string(want) {
				t.Errorf("got stored %s, want what Restore answered %s", raw, want)
			}
			if got["createdBy"] != d.ids["mia"] {
				t.Errorf("got createdBy %v, want mia", got["createdBy"])
			}
		})
		t.Run("the trash of a collection without softDelete is a 404", func(t *testing.T) {
			_, err := d.k.Records("deskNotes").Trash(ctx, mia, nil)
			if kit.StatusOf(err) != 404 {
				t.Fatalf("got %v, want a 404", err)
			}
		})
	})
}
