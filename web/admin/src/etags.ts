/**
 * ETags remembers the ETag of every record response (a single-record GET,
 * a create and an update answer with one), keyed by the record's id, so an
 * edit can send it back as If-Match: the server then refuses (412) a save
 * over a record that changed since the form read it.
 */
export interface ETags {
  fetch: typeof fetch
  /** The last ETag seen for a record id, if any. */
  get(id: string): string | undefined
  forget(id: string): void
}

export function trackETags(inner: typeof fetch): ETags {
  const seen = new Map<string, string>()
  return {
    async fetch(input, init) {
      const res = await inner(input, init)
      const etag = res.headers.get('ETag')
      if (etag && res.ok) {
        // The id is the last path segment of a single-record URL; a create
        // answers with a Location header naming it.
        const loc = res.headers.get('Location') ?? (typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
        const path = new URL(loc, location.href).pathname
        const id = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1))
        if (id) seen.set(id, etag)
      }
      return res
    },
    get: (id) => seen.get(id),
    forget: (id) => void seen.delete(id),
  }
}
