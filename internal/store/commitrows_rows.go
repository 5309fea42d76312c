package store

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// rowInsert is the prepared single-row INSERT of one bun model type, for
// commit rows in the SQLite write queue. A one-row INSERT needs no
// statement journal (SQLite checks every constraint before it writes), so
// an optional row whose INSERT fails undoes only itself without a
// savepoint; the savepoint that a multi-row INSERT or a set of several
// rows needs makes SQLite copy every pre-existing page the rows touch into
// its sub-journal (a temporary file past 64 KiB). The text is the same
// for every row, so the statement cache compiles it once per connection.
type rowInsert struct {
	query  string
	table  string
	fields []*schema.Field
	// types are the fields' SQL types, for the casts of a VALUES list
	// (see joinedRowsSQL).
	types []string
}

// rowInserts remembers each model type's rowInsert, or nil when its
// fields are not all plain values (see plainField).
type rowInserts struct{ m sync.Map } // reflect.Type -> *rowInsert

// of returns the rowInsert of slice, a pointer to a slice of structs or of
// pointers to structs, or nil when the model has a field the plain path
// does not bind (the rows then go through bun).
func (r *rowInserts) of(db *bun.DB, slice reflect.Type) *rowInsert {
	if v, ok := r.m.Load(slice); ok {
		return v.(*rowInsert)
	}
	ri := newRowInsert(db, slice)
	r.m.Store(slice, ri)
	return ri
}

func newRowInsert(db *bun.DB, slice reflect.Type) *rowInsert {
	elem := slice.Elem().Elem()
	if elem.Kind() == reflect.Pointer {
		elem = elem.Elem()
	}
	if elem.Kind() != reflect.Struct {
		return nil
	}
	table := db.Dialect().Tables().Get(elem)
	ri := &rowInsert{table: string(table.SQLName)}
	var q strings.Builder
	q.WriteString("INSERT INTO ")
	q.WriteString(string(table.SQLName))
	q.WriteString(" (")
	for i, f := range table.Fields {
		if !plainField(f) {
			return nil
		}
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(string(f.SQLName))
		ri.fields = append(ri.fields, f)
		ri.types = append(ri.types, f.CreateTableSQLType)
	}
	q.WriteString(") VALUES (")
	q.WriteString(strings.TrimSuffix(strings.Repeat("?, ", len(ri.fields)), ", "))
	q.WriteString(")")
	ri.query = q.String()
	return ri
}

// timeType is time.Time's type.
var timeType = reflect.TypeFor[time.Time]()

// plainField reports whether args binds f exactly as bun would write it:
// a non-pointer string, integer, float, bool or time.Time with none of the
// tags that change what bun inserts (nullzero, a default, autoincrement,
// a custom appender's type such as json).
func plainField(f *schema.Field) bool {
	if f.IsPtr || f.NullZero || f.SQLDefault != "" || f.AutoIncrement || f.Tag.HasOption("scanonly") {
		return false
	}
	switch f.IndirectType.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Float32, reflect.Float64:
		return f.UserSQLType == "" || !strings.EqualFold(f.UserSQLType, "json") && !strings.EqualFold(f.UserSQLType, "jsonb")
	case reflect.Struct:
		return f.IndirectType == timeType
	}
	return false
}

// errNUL is the error of a string with a NUL byte, which bun refuses too.
var errNUL = errors.New("store: a commit row's string holds a NUL byte")

// args returns the values of row (a struct or a pointer to one) for
// query's placeholders, as bun would write them: times in UTC, as bun's
// text on SQLite and as time.Time for PostgreSQL's driver (pg).
func (ri *rowInsert) args(row reflect.Value, pg bool) ([]any, error) {
	if row.Kind() == reflect.Pointer {
		row = row.Elem()
	}
	args := make([]any, len(ri.fields))
	for i, f := range ri.fields {
		v := f.Value(row)
		switch v.Kind() {
		case reflect.String:
			if strings.IndexByte(v.String(), 0) >= 0 {
				return nil, errNUL
			}
			args[i] = v.String()
		case reflect.Bool:
			args[i] = v.Bool()
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			args[i] = v.Int()
		case reflect.Float32, reflect.Float64:
			args[i] = v.Float()
		default:
			tm := v.Interface().(time.Time).UTC()
			if pg {
				args[i] = tm
			} else {
				args[i] = tm.Format("2006-01-02 15:04:05.999999-07:00")
			}
		}
	}
	return args, nil
}

// insertOneByOne inserts the rows of set one prepared single-row INSERT
// at a time; handled is false (nothing inserted) when the model's rows do
// not take the plain path.
func (q *writeQueue) insertOneByOne(ctx context.Context, tx bun.Tx, set CommitRows) (handled bool, err error) {
	v := reflect.ValueOf(set.Model)
	ri := q.s.rowInserts.of(q.s.db, v.Type())
	if ri == nil {
		return false, nil
	}
	rows := v.Elem()
	for i := range rows.Len() {
		args, err := ri.args(rows.Index(i), false)
		if err != nil {
			return true, err
		}
		if _, err := q.s.exec(ctx, tx, ri.query, args...); err != nil {
			return true, err
		}
	}
	return true, nil
}
