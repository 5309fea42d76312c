import type { LocationQuery } from 'vue-router'
import type { FilterCondition } from './components/FilterBar.vue'

/** ListState is a list's state as the query string keeps it. */
export interface ListState {
  page: number
  pageSize: number
  sortBy: string
  sortDirection: 'asc' | 'desc'
  search: string
  filters: FilterCondition[]
}

const one = (v: LocationQuery[string] | undefined): string => (typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '')

/**
 * readListState reads the parts of a list's state the query string holds:
 * `q` (search), `sort` (`price` or `-price`), `page`, `size` and `filter`
 * (a JSON list of `[field, op, value]`). Values that do not read are left
 * out.
 */
export function readListState(q: LocationQuery): Partial<ListState> {
  const out: Partial<ListState> = {}
  const search = one(q.q)
  if (search) out.search = search
  const sort = one(q.sort)
  if (/^-?[A-Za-z_][\w.]*$/.test(sort)) Object.assign(out, { sortBy: sort.replace(/^-/, ''), sortDirection: sort.startsWith('-') ? 'desc' : 'asc' })
  const page = Number(one(q.page))
  if (Number.isInteger(page) && page > 1) out.page = page
  const size = Number(one(q.size))
  if (Number.isInteger(size) && size > 0 && size <= 100) out.pageSize = size
  const filter = one(q.filter)
  if (filter) {
    try {
      const list = JSON.parse(filter) as unknown
      if (Array.isArray(list)) {
        out.filters = list
          .filter((c): c is [string, string, string] => Array.isArray(c) && c.length === 3 && c.every((x) => typeof x === 'string'))
          .map(([field, op, value]) => ({ field, op, value }))
      }
    } catch {
      // A filter that does not read is left out.
    }
  }
  return out
}

/** writeListState is the query string of a list's state, without the parts at their defaults. */
export function writeListState(s: ListState): Record<string, string> {
  const q: Record<string, string> = {}
  if (s.search) q.q = s.search
  q.sort = `${s.sortDirection === 'desc' ? '-' : ''}${s.sortBy}`
  if (s.page > 1) q.page = String(s.page)
  q.size = String(s.pageSize)
  if (s.filters.length) q.filter = JSON.stringify(s.filters.map((c) => [c.field, c.op, c.value]))
  return q
}
