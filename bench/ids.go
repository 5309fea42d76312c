package main

import (
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
)

// The ?ids= workloads (issue 20, goal 5): the query fetch strategy's read
// of records named by id, one id (ids1) or a hundred (ids100) drawn at
// random from the loaded team's records. A read by primary key costs in
// proportion to the ids, not to the team's rows: ids100 answers within
// about twice the time of ids1 whatever the team's size.

// idsWorkloads are the ?ids= workloads and how many ids each names.
var idsWorkloads = map[string]int{"ids1": 1, "ids100": 100}

// idsWorkload returns the ?ids= workload name, or false when name is not
// one.
func idsWorkload(name string, ids []string) (workload, bool) {
	n, ok := idsWorkloads[name]
	if !ok {
		return workload{}, false
	}
	return workload{name: name, want: 200, next: func(r *rand.Rand, _ int64) (request, bool) {
		pick := make([]string, n)
		for i := range pick {
			pick[i] = ids[r.IntN(len(ids))]
		}
		return request{method: "GET", path: "?ids=" + url.QueryEscape(strings.Join(pick, ","))}, true
	}}, true
}

// listIDs is the baseline's ?ids= answer: the team's records among the
// ids, as a JSON array in the order of the ids. Like kit it reads them by
// primary key, the team tested on each row (a unary + keeps SQLite from
// walking the team's index instead).
func (s *rawServer) listIDs(w http.ResponseWriter, r *http.Request, team string) {
	ids := strings.Split(r.URL.Query().Get("ids"), ",")
	if len(ids) > 100 {
		rawError(w, http.StatusBadRequest, "too many ids")
		return
	}
	q := &rawQuery{pg: s.pg}
	q.sql("SELECT " + rawColumns + " FROM shop_products WHERE id IN (")
	for i, id := range ids {
		if i > 0 {
			q.sql(", ")
		}
		q.arg(id)
	}
	if s.pg {
		q.sql(") AND (team_id || '') = ").arg(team)
	} else {
		q.sql(") AND +team_id = ").arg(team)
	}
	rows, err := s.db.QueryContext(r.Context(), q.sb.String(), q.args...)
	if err != nil {
		s.fail(w, err)
		return
	}
	defer rows.Close()
	byID := map[string]rawProduct{}
	for rows.Next() {
		p, err := scanRawProduct(rows)
		if err != nil {
			s.fail(w, err)
			return
		}
		byID[p.ID] = p
	}
	if err := rows.Err(); err != nil {
		s.fail(w, err)
		return
	}
	out := make([]rawProduct, 0, len(byID))
	for _, id := range ids {
		if p, ok := byID[id]; ok {
			out = append(out, p)
		}
	}
	rawJSON(w, http.StatusOK, out)
}
