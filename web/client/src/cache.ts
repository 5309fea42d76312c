/**
 * The cache key of every read of a collection starts with
 * `collection:<key>:`, where `<key>` is the collection's registry key
 * (`shopProducts`); the rest names the team and the query. Invalidating the
 * prefix drops every cached read of that collection (the spec's
 * `collection:<name>:*`).
 */
export function collectionCachePrefix(collection: string): string {
  return `collection:${collection}:`
}

/** collectionCacheKey builds the key `collection:<key>:<query>`. */
export function collectionCacheKey(collection: string, query: string): string {
  return collectionCachePrefix(collection) + query
}

/**
 * CollectionCache holds the results of reads by key and drops them by key
 * prefix. Values are kept until invalidated or until `ttlMs` (when given)
 * has passed since they were stored.
 */
export class CollectionCache {
  private readonly entries = new Map<string, { value: unknown; storedAt: number }>()
  private readonly ttlMs: number | undefined
  private invalidations = 0

  /** @param options.ttlMs how long an entry stays fresh; kept until invalidated when omitted. */
  constructor(options: { ttlMs?: number } = {}) {
    this.ttlMs = options.ttlMs
  }

  /** get returns the fresh value stored under key, or undefined. */
  get<T>(key: string): T | undefined {
    const e = this.entries.get(key)
    if (!e) return undefined
    if (this.ttlMs !== undefined && Date.now() - e.storedAt > this.ttlMs) {
      this.entries.delete(key)
      return undefined
    }
    return e.value as T
  }

  /** has reports whether a fresh value is stored under key. */
  has(key: string): boolean {
    return this.get(key) !== undefined
  }

  /** set stores value under key. */
  set(key: string, value: unknown): void {
    this.entries.set(key, { value, storedAt: Date.now() })
  }

  /**
   * generation counts the invalidations so far (`invalidate`, `clear`). A
   * read that began at one generation stores its answer only if it is
   * still current when the answer arrives (`setIfCurrent`): an answer the
   * server gave before a write may not be newer than the write.
   */
  get generation(): number {
    return this.invalidations
  }

  /** setIfCurrent stores value under key unless an invalidation happened since generation; it reports whether it stored. */
  setIfCurrent(key: string, value: unknown, generation: number): boolean {
    if (generation !== this.invalidations) return false
    this.set(key, value)
    return true
  }

  /** invalidate drops every entry whose key starts with prefix and returns how many it dropped. */
  invalidate(prefix: string): number {
    this.invalidations++
    let n = 0
    for (const key of [...this.entries.keys()]) {
      if (key.startsWith(prefix)) {
        this.entries.delete(key)
        n++
      }
    }
    return n
  }

  /** invalidateCollection drops every cached read of one collection. */
  invalidateCollection(collection: string): number {
    return this.invalidate(collectionCachePrefix(collection))
  }

  /** clear drops every entry. */
  clear(): void {
    this.invalidations++
    this.entries.clear()
  }

  /** keys lists the stored keys (fresh or not), for inspection. */
  keys(): string[] {
    return [...this.entries.keys()]
  }
}
