import { FilterBuilder } from './filter'
import type { ListQuery } from './types'

/**
 * encodeListQuery turns a ListQuery into URL search parameters with a
 * stable order (sorted by name), so equal queries give equal cache keys.
 * Undefined, null and empty-string values are left out.
 */
export function encodeListQuery(query: ListQuery = {}): URLSearchParams {
  const params = new URLSearchParams()
  for (const name of Object.keys(query).sort()) {
    const value = query[name]
    if (value === undefined || value === null || value === '') continue
    if (name === 'filter') {
      const f = value instanceof FilterBuilder ? value.build() : value
      if (f && typeof f === 'object' && Object.keys(f).length === 0) continue
      params.set('filter', JSON.stringify(f))
    } else if (name === 'sort' && Array.isArray(value)) {
      if (value.length) params.set('sort', value.join(','))
    } else if (name === 'ids' && Array.isArray(value)) {
      params.set('ids', value.join(','))
    } else if (typeof value === 'object') {
      params.set(name, JSON.stringify(value))
    } else {
      params.set(name, String(value))
    }
  }
  return params
}
