package main

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	_ "modernc.org/sqlite" // the "sqlite" driver, as kit uses
)

// The raw baseline: what a careful developer writes by hand for one
// products table with net/http and database/sql, and nothing more. It
// serves the same routes, the same JSON shapes and the same list
// semantics as kit (pages of 20 newest first with a total count,
// case-insensitive LIKE search over title, sku and description, filters
// on price and stock) on the same table shape, indexes, pragmas and pool.
// It is idiomatic, not pessimized and not heroic: plain queries (no
// statement cache), encoding/json with structs, one static bearer token,
// the team checked against a fixed set, minimal validation, the unique
// index as the only uniqueness check, UPDATE ... RETURNING.

// rawSQLiteDSN is kit's file DSN, written out as a hand-written server
// would (internal/store/sqlite.go).
func rawSQLiteDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_txlock=immediate"
}

// openRawSQLite opens path with kit's pragmas and pool of 8.
func openRawSQLite(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", rawSQLiteDSN(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// rawColumns are the columns of shop_products, in kit's order.
const rawColumns = "id, team_id, owner, title, sku, description, price, stock, is_active, created_at, updated_at, created_by, updated_by"

// rawTimeLayout is how the SQLite baseline stores times: fixed width UTC,
// so text order is time order (kit stores the same).
const rawTimeLayout = "2006-01-02T15:04:05.000000Z"

// rawSchema returns the DDL of the baseline's table and its indexes: kit's
// shape ((team_id, created_at, id) for the default list, unique (team_id,
// sku), (team_id, stock)). On SQLite the price is integer cents; on
// PostgreSQL NUMERIC(10,2), TIMESTAMPTZ and text COLLATE "C" (bytewise
// order and ASCII-only case folding whatever the locale), as kit does.
func rawSchema(pg bool) []string {
	text, price, stock, active, ts := "TEXT", "INTEGER", "INTEGER", "INTEGER", "TEXT"
	if pg {
		text, price, active, ts = `TEXT COLLATE "C"`, "NUMERIC(10,2)", "BOOLEAN", "TIMESTAMPTZ"
	}
	return []string{
		`CREATE TABLE IF NOT EXISTS shop_products (
  id ` + text + ` PRIMARY KEY NOT NULL,
  team_id ` + text + ` NOT NULL,
  owner ` + text + ` NOT NULL,
  title ` + text + `,
  sku ` + text + `,
  description ` + text + `,
  price ` + price + `,
  stock ` + stock + `,
  is_active ` + active + `,
  created_at ` + ts + ` NOT NULL,
  updated_at ` + ts + ` NOT NULL,
  created_by ` + text + ` NOT NULL,
  updated_by ` + text + ` NOT NULL
)`,
		`CREATE INDEX IF NOT EXISTS ix_shop_products_team_created ON shop_products (team_id, created_at, id)`,
		`CREATE UNIQUE INDEX IF NOT EXISTS ux_shop_products_sku ON shop_products (team_id, sku)`,
		`CREATE INDEX IF NOT EXISTS ix_shop_products_stock ON shop_products (team_id, stock)`,
	}
}

// rawServer is the baseline's handler.
type rawServer struct {
	db     *sql.DB
	pg     bool
	token  []byte
	userID string
	teams  map[string]bool // the token's user is a member of these
	audit  bool            // the raw-audit server (rawaudit.go)
}

// rawProduct is a product on the wire.
type rawProduct struct {
	ID          string   `json:"id"`
	TeamID      string   `json:"teamId"`
	Owner       string   `json:"owner"`
	Title       *string  `json:"title"`
	SKU         *string  `json:"sku"`
	Description *string  `json:"description"`
	Price       *string  `json:"price"`
	Stock       *float64 `json:"stock"`
	IsActive    *bool    `json:"isActive"`
	CreatedAt   string   `json:"createdAt"`
	UpdatedAt   string   `json:"updatedAt"`
	CreatedBy   string   `json:"createdBy"`
	UpdatedBy   string   `json:"updatedBy"`
}

type rawPagination struct {
	CurrentPage   int    `json:"currentPage"`
	PageSize      int    `json:"pageSize"`
	TotalItems    int    `json:"totalItems"`
	TotalPages    int    `json:"totalPages"`
	SortBy        string `json:"sortBy"`
	SortDirection string `json:"sortDirection"`
}

type rawList struct {
	Items      []rawProduct  `json:"items"`
	Pagination rawPagination `json:"pagination"`
}

// rawInput is a create or update body; nil means absent.
type rawInput struct {
	Title       *string    `json:"title"`
	SKU         *string    `json:"sku"`
	Description *string    `json:"description"`
	Price       *rawAmount `json:"price"`
	Stock       *int64     `json:"stock"`
	IsActive    *bool      `json:"isActive"`
}

// rawAmount is a price: a JSON string or number with at most 8 integer
// digits and 2 decimals, kept in cents.
type rawAmount int64

func (a *rawAmount) UnmarshalJSON(b []byte) error {
	s := string(b)
	if n := len(s); n >= 2 && s[0] == '"' && s[n-1] == '"' {
		s = s[1 : n-1]
	}
	c, err := parseCents(s)
	if err != nil {
		return err
	}
	*a = rawAmount(c)
	return nil
}

var errBadPrice = errors.New("price must be a decimal with at most 8 digits before the point and 2 after")

func parseCents(s string) (int64, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, hasFrac := strings.Cut(s, ".")
	if whole == "" || len(whole) > 8 || len(frac) > 2 || hasFrac && frac == "" {
		return 0, errBadPrice
	}
	for _, c := range whole + frac {
		if c < '0' || c > '9' {
			return 0, errBadPrice
		}
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt((frac + "00")[:2], 10, 64)
	c := w*100 + f
	if neg {
		c = -c
	}
	return c, nil
}

func (s *rawServer) routes() http.Handler {
	mux := http.NewServeMux()
	const base = "/api/teams/{team}/shop-products"
	mux.HandleFunc("GET "+base, s.member(s.list))
	mux.HandleFunc("POST "+base, s.member(s.create))
	mux.HandleFunc("GET "+base+"/{id}", s.member(s.get))
	mux.HandleFunc("PATCH "+base+"/{id}", s.member(s.update))
	mux.HandleFunc("DELETE "+base+"/{id}", s.member(s.delete))
	return mux
}

// member checks the static bearer token and that the route's team is one
// of the user's.
func (s *rawServer) member(h func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(token), s.token) != 1 {
			rawError(w, http.StatusUnauthorized, "missing or invalid token")
			return
		}
		team := r.PathValue("team")
		if !s.teams[team] {
			rawError(w, http.StatusNotFound, "team not found")
			return
		}
		h(w, r, team)
	}
}

func rawError(w http.ResponseWriter, status int, msg string) {
	rawJSON(w, status, map[string]any{"status": status, "statusText": http.StatusText(status), "message": msg})
}

func rawJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// rawQuery builds a statement with the dialect's placeholders.
type rawQuery struct {
	pg   bool
	sb   strings.Builder
	args []any
}

func (q *rawQuery) sql(s string) *rawQuery { q.sb.WriteString(s); return q }

// arg writes a placeholder for v.
func (q *rawQuery) arg(v any) *rawQuery {
	q.args = append(q.args, v)
	if q.pg {
		q.sb.WriteString("$" + strconv.Itoa(len(q.args)))
	} else {
		q.sb.WriteString("?")
	}
	return q
}

func (s *rawServer) like() string {
	if s.pg {
		return " ILIKE "
	}
	return " LIKE "
}

// price is the stored form of cents.
func (s *rawServer) price(c int64) any {
	if s.pg {
		return centsString(c)
	}
	return c
}

// now is the stored form of the current time.
func (s *rawServer) now() any {
	t := time.Now().UTC().Truncate(time.Microsecond)
	if s.pg {
		return t
	}
	return t.Format(rawTimeLayout)
}

// intParam reads the integer query parameter name, def when absent; ok is
// false when it is not an integer from 1 to max.
func intParam(v url.Values, name string, def, max int) (n int, ok bool) {
	p := v.Get(name)
	if p == "" {
		return def, true
	}
	n, err := strconv.Atoi(p)
	return n, err == nil && n >= 1 && n <= max
}

func (s *rawServer) list(w http.ResponseWriter, r *http.Request, team string) {
	v := r.URL.Query()
	if v.Has("ids") {
		s.listIDs(w, r, team)
		return
	}
	page, okPage := intParam(v, "page", 1, 1_000_000)
	size, okSize := intParam(v, "pageSize", 20, 100)
	if !okPage || !okSize {
		rawError(w, http.StatusBadRequest, "invalid page or pageSize")
		return
	}
	where := &rawQuery{pg: s.pg}
	where.sql(" WHERE team_id = ").arg(team)
	if term := strings.TrimSpace(v.Get("search")); term != "" {
		if len(term) > 256 {
			rawError(w, http.StatusBadRequest, "invalid search")
			return
		}
		pat := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(term) + "%"
		where.sql(" AND (title" + s.like()).arg(pat).sql(` ESCAPE '\' OR sku` + s.like()).arg(pat).
			sql(` ESCAPE '\' OR description` + s.like()).arg(pat).sql(` ESCAPE '\')`)
	}
	if f := v.Get("filter"); f != "" {
		if err := s.filter(where, f); err != nil {
			rawError(w, http.StatusBadRequest, "invalid filter: "+err.Error())
			return
		}
	}
	ctx := r.Context()
	out := rawList{Items: []rawProduct{}, Pagination: rawPagination{CurrentPage: page, PageSize: size, SortBy: "createdAt", SortDirection: "desc"}}
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM shop_products"+where.sb.String(), where.args...).Scan(&out.Pagination.TotalItems); err != nil {
		s.fail(w, err)
		return
	}
	out.Pagination.TotalPages = (out.Pagination.TotalItems + size - 1) / size
	if offset := (page - 1) * size; offset < out.Pagination.TotalItems {
		where.sql(" ORDER BY created_at DESC, id DESC LIMIT ").arg(size).sql(" OFFSET ").arg(offset)
		rows, err := s.db.QueryContext(ctx, "SELECT "+rawColumns+" FROM shop_products"+where.sb.String(), where.args...)
		if err != nil {
			s.fail(w, err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			p, err := scanRawProduct(rows)
			if err != nil {
				s.fail(w, err)
				return
			}
			out.Items = append(out.Items, p)
		}
		if err := rows.Err(); err != nil {
			s.fail(w, err)
			return
		}
	}
	rawJSON(w, http.StatusOK, out)
}

// filter adds the conditions of a filter object on price and stock:
// {"price": {"gte": "10.00", "lt": "50"}, "stock": 3}.
func (s *rawServer) filter(q *rawQuery, f string) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(f), &obj); err != nil {
		return errors.New("must be a JSON object")
	}
	ops := map[string]string{"eq": " = ", "gt": " > ", "gte": " >= ", "lt": " < ", "lte": " <= "}
	for field, raw := range obj {
		if field != "price" && field != "stock" {
			return fmt.Errorf("cannot filter on %q", field)
		}
		conds := map[string]json.RawMessage{}
		if len(raw) > 0 && raw[0] == '{' {
			if err := json.Unmarshal(raw, &conds); err != nil {
				return err
			}
		} else {
			conds["eq"] = raw
		}
		for op, val := range conds {
			sqlOp, ok := ops[op]
			if !ok {
				return fmt.Errorf("unknown operator %q", op)
			}
			var arg any
			if field == "price" {
				var a rawAmount
				if err := a.UnmarshalJSON(val); err != nil {
					return err
				}
				arg = s.price(int64(a))
			} else {
				var n float64
				if err := json.Unmarshal(val, &n); err != nil || math.IsNaN(n) {
					return errors.New("stock takes a number")
				}
				arg = n
			}
			q.sql(" AND " + field + sqlOp).arg(arg)
		}
	}
	return nil
}

type rawScanner interface{ Scan(...any) error }

// writeReturning runs a write with RETURNING and scans its one row
// (sql.ErrNoRows when none). It reads the rows to their end rather than
// through QueryRow: a sql.Row closes the statement after the first row,
// and SQLite then commits in sqlite3_reset, which never runs its WAL
// auto-checkpoint (that runs when a statement steps to its end). A server
// that wrote only through QueryRow ... RETURNING would never checkpoint,
// and its WAL would grow without bound (TestRawWritesKeepTheWALBounded).
func writeReturning(ctx context.Context, db rawDB, query string, args ...any) (rawProduct, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return rawProduct{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return rawProduct{}, err
		}
		return rawProduct{}, sql.ErrNoRows
	}
	p, err := scanRawProduct(rows)
	if err != nil {
		return p, err
	}
	for rows.Next() {
	}
	return p, rows.Err()
}

func scanRawProduct(sc rawScanner) (rawProduct, error) {
	var p rawProduct
	var title, sku, desc, created, updated sql.NullString
	var price any
	var stock sql.NullInt64
	var active sql.NullBool
	if err := sc.Scan(&p.ID, &p.TeamID, &p.Owner, &title, &sku, &desc, &price, &stock, &active,
		&created, &updated, &p.CreatedBy, &p.UpdatedBy); err != nil {
		return p, err
	}
	p.Title, p.SKU, p.Description = nullStr(title), nullStr(sku), nullStr(desc)
	switch x := price.(type) {
	case int64:
		s := centsString(x)
		p.Price = &s
	case float64:
		s := centsString(int64(math.Round(x * 100)))
		p.Price = &s
	case string:
		p.Price = &x
	case []byte:
		s := string(x)
		p.Price = &s
	}
	if stock.Valid {
		f := float64(stock.Int64)
		p.Stock = &f
	}
	if active.Valid {
		p.IsActive = &active.Bool
	}
	p.CreatedAt, p.UpdatedAt = created.String, updated.String
	return p, nil
}

func nullStr(n sql.NullString) *string {
	if !n.Valid {
		return nil
	}
	return &n.String
}

func (s *rawServer) fail(w http.ResponseWriter, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	fmt.Fprintln(stderrLog, "raw: request failed:", err)
	rawError(w, http.StatusInternalServerError, "internal error")
}

// readInput decodes a JSON body into in: JSON content type, at most 1 MiB,
// known fields only, one object.
func readInput(w http.ResponseWriter, r *http.Request, in *rawInput) error {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return errors.New("the body must be JSON")
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(in); err != nil {
		return fmt.Errorf("malformed body: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("the body must be one JSON object")
	}
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		return errors.New("title must not be empty")
	}
	for _, s := range []*string{in.Title, in.SKU, in.Description} {
		if s != nil && strings.IndexByte(*s, 0) >= 0 {
			return errors.New("text must not contain NUL bytes")
		}
	}
	return nil
}

func isUniqueViolation(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "SQLSTATE 23505")
}

func (s *rawServer) create(w http.ResponseWriter, r *http.Request, team string) {
	var in rawInput
	if err := readInput(w, r, &in); err != nil {
		rawError(w, http.StatusBadRequest, err.Error())
		return
	}
	if in.Title == nil {
		rawError(w, http.StatusBadRequest, "title is required")
		return
	}
	id, err := uuid.NewV7()
	if err != nil {
		s.fail(w, err)
		return
	}
	now := s.now()
	var price any
	if in.Price != nil {
		price = s.price(int64(*in.Price))
	}
	q := &rawQuery{pg: s.pg}
	q.sql("INSERT INTO shop_products (" + rawColumns + ") VALUES (").arg(id.String()).sql(", ").arg(team).sql(", ").arg(s.userID).
		sql(", ").arg(in.Title).sql(", ").arg(in.SKU).sql(", ").arg(in.Description).sql(", ").arg(price).
		sql(", ").arg(in.Stock).sql(", ").arg(in.IsActive).sql(", ").arg(now).sql(", ").arg(now).
		sql(", ").arg(s.userID).sql(", ").arg(s.userID).sql(") RETURNING " + rawColumns)
	_, p, err := s.write(r.Context(), team, "create", func(db rawDB) (*rawProduct, *rawProduct, error) {
		p, err := writeReturning(r.Context(), db, q.sb.String(), q.args...)
		return nil, &p, err
	})
	if err != nil {
		if isUniqueViolation(err) {
			rawError(w, http.StatusConflict, "sku must be unique in the team")
			return
		}
		s.fail(w, err)
		return
	}
	w.Header().Set("Location", r.URL.Path+"/"+p.ID)
	rawJSON(w, http.StatusCreated, *p)
}

func (s *rawServer) get(w http.ResponseWriter, r *http.Request, team string) {
	q := &rawQuery{pg: s.pg}
	q.sql("SELECT " + rawColumns + " FROM shop_products WHERE team_id = ").arg(team).sql(" AND id = ").arg(r.PathValue("id"))
	p, err := scanRawProduct(s.db.QueryRowContext(r.Context(), q.sb.String(), q.args...))
	if errors.Is(err, sql.ErrNoRows) {
		rawError(w, http.StatusNotFound, "record not found")
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	rawJSON(w, http.StatusOK, p)
}

func (s *rawServer) update(w http.ResponseWriter, r *http.Request, team string) {
	var in rawInput
	if err := readInput(w, r, &in); err != nil {
		rawError(w, http.StatusBadRequest, err.Error())
		return
	}
	q := &rawQuery{pg: s.pg}
	q.sql("UPDATE shop_products SET updated_at = ").arg(s.now()).sql(", updated_by = ").arg(s.userID)
	set := func(col string, v any) { q.sql(", " + col + " = ").arg(v) }
	if in.Title != nil {
		set("title", *in.Title)
	}
	if in.SKU != nil {
		set("sku", *in.SKU)
	}
	if in.Description != nil {
		set("description", *in.Description)
	}
	if in.Price != nil {
		set("price", s.price(int64(*in.Price)))
	}
	if in.Stock != nil {
		set("stock", *in.Stock)
	}
	if in.IsActive != nil {
		set("is_active", *in.IsActive)
	}
	q.sql(" WHERE team_id = ").arg(team).sql(" AND id = ").arg(r.PathValue("id")).sql(" RETURNING " + rawColumns)
	_, p, err := s.write(r.Context(), team, "update", func(db rawDB) (*rawProduct, *rawProduct, error) {
		var before *rawProduct
		if s.audit {
			old, err := s.readForUpdate(r.Context(), db, team, r.PathValue("id"))
			if err != nil {
				return nil, nil, err
			}
			before = &old
		}
		p, err := writeReturning(r.Context(), db, q.sb.String(), q.args...)
		return before, &p, err
	})
	switch {
	case errors.Is(err, sql.ErrNoRows):
		rawError(w, http.StatusNotFound, "record not found")
	case err != nil && isUniqueViolation(err):
		rawError(w, http.StatusConflict, "sku must be unique in the team")
	case err != nil:
		s.fail(w, err)
	default:
		rawJSON(w, http.StatusOK, *p)
	}
}

// readForUpdate reads a record's values before an audited update, locking
// its row on PostgreSQL.
func (s *rawServer) readForUpdate(ctx context.Context, db rawDB, team, id string) (rawProduct, error) {
	q := &rawQuery{pg: s.pg}
	q.sql("SELECT " + rawColumns + " FROM shop_products WHERE team_id = ").arg(team).sql(" AND id = ").arg(id)
	if s.pg {
		q.sql(" FOR UPDATE")
	}
	rows, err := db.QueryContext(ctx, q.sb.String(), q.args...)
	if err != nil {
		return rawProduct{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return rawProduct{}, err
		}
		return rawProduct{}, sql.ErrNoRows
	}
	p, err := scanRawProduct(rows)
	if err != nil {
		return p, err
	}
	return p, rows.Close()
}

func (s *rawServer) delete(w http.ResponseWriter, r *http.Request, team string) {
	q := &rawQuery{pg: s.pg}
	q.sql("DELETE FROM shop_products WHERE team_id = ").arg(team).sql(" AND id = ").arg(r.PathValue("id"))
	_, _, err := s.write(r.Context(), team, "delete", func(db rawDB) (*rawProduct, *rawProduct, error) {
		if s.audit {
			// The audit row keeps the deleted values.
			p, err := writeReturning(r.Context(), db, q.sb.String()+" RETURNING "+rawColumns, q.args...)
			return &p, nil, err
		}
		res, err := db.ExecContext(r.Context(), q.sb.String(), q.args...)
		if err != nil {
			return nil, nil, err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return nil, nil, sql.ErrNoRows
		}
		return nil, nil, nil
	})
	switch {
	case errors.Is(err, sql.ErrNoRows):
		rawError(w, http.StatusNotFound, "record not found")
	case err != nil:
		s.fail(w, err)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}
