package sqlexec

import (
	"context"
	"testing"

	"github.com/uptrace/bun"
)

// hookLog is a bun.QueryHook that records what it sees.
type hookLog struct {
	before []string
	after  []string
	args   [][]any
	errs   []error
}

func (h *hookLog) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	h.before = append(h.before, ev.Query)
	return ctx
}

func (h *hookLog) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	h.after = append(h.after, ev.Query)
	h.args = append(h.args, ev.QueryArgs)
	h.errs = append(h.errs, ev.Err)
}

// TestHookSeesEveryStatement checks that the Runner's Hook is called
// around every way of running a statement, cached or not, with the SQL
// text, the arguments and the outcome.
func TestHookSeesEveryStatement(t *testing.T) {
	r, db := openRunner(t)
	h := &hookLog{}
	r.Hook = h
	ctx := t.Context()
	runs := []struct {
		name    string
		query   string
		run     func(q string) error
		wantErr bool
	}{
		{"Exec is seen", "UPDATE t SET n = ?", func(q string) error { _, err := r.Exec(ctx, db, q, 1); return err }, false},
		{"ExecOnce is seen", "UPDATE t SET n = n + ?", func(q string) error { _, err := r.ExecOnce(ctx, db, q, 1); return err }, false},
		{"Query is seen", "SELECT n FROM t WHERE n > ?", func(q string) error {
			rows, err := r.Query(ctx, db, q, 0)
			if err == nil {
				rows.Close()
			}
			return err
		}, false},
		{"QueryOnce is seen", "SELECT n + ? FROM t", func(q string) error {
			rows, err := r.QueryOnce(ctx, db, q, 0)
			if err == nil {
				rows.Close()
			}
			return err
		}, false},
		{"QueryRow is seen", "SELECT n FROM t WHERE n >= ?", func(q string) error { var n int; return r.QueryRow(ctx, db, q, 0).Scan(&n) }, false},
		{"QueryRowOnce is seen", "SELECT n * ? FROM t", func(q string) error { var n int; return r.QueryRowOnce(ctx, db, q, 2).Scan(&n) }, false},
		{"a failing statement is seen with its error", "UPDATE missing SET n = ?", func(q string) error { _, err := r.ExecOnce(ctx, db, q, 1); return err }, true},
	}
	for i, tc := range runs {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(tc.query); (err != nil) != tc.wantErr {
				t.Fatalf("run: got %v, want error %v", err, tc.wantErr)
			}
			if len(h.before) != i+1 || len(h.after) != i+1 {
				t.Fatalf("hook calls: got %d before and %d after, want %d of each", len(h.before), len(h.after), i+1)
			}
			if h.before[i] != tc.query || h.after[i] != tc.query {
				t.Errorf("query seen: got %q / %q, want %q", h.before[i], h.after[i], tc.query)
			}
			if len(h.args[i]) != 1 {
				t.Errorf("arguments seen: got %v, want one", h.args[i])
			}
			if (h.errs[i] != nil) != tc.wantErr {
				t.Errorf("error seen: got %v, want error %v", h.errs[i], tc.wantErr)
			}
		})
	}
}
