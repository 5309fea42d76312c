import { CollectionCache, collectionCacheKey } from './cache'
import { openChangeStream, type ChangeEvent, type ChangeSubscription, type SubscribeOptions } from './changes'
import { errorFromResponse, KitError } from './errors'
import { encodeListQuery } from './query'
import type {
  CollectionConfig,
  CollectionConfigs,
  EventListQuery,
  FetchStrategy,
  KitEvent,
  KitRecord,
  ListQuery,
  ListResponse,
  MoveTarget,
  Mutation,
  ReadOptions,
  ReorderInput,
} from './types'

/** KitClientOptions configures a KitClient; every field is optional. */
export interface KitClientOptions {
  /**
   * The server's origin, such as `http://127.0.0.1:8080`. Empty (the
   * default) makes URLs relative to the page: same-origin in a browser.
   */
  baseURL?: string
  /** The path kit's API is mounted under. Default `/api`. */
  prefix?: string
  /** A bearer token (`kit token create`), or a function returning the current one. */
  token?: string | (() => string | undefined | Promise<string | undefined>)
  /** Headers sent with every request. */
  headers?: Record<string, string>
  /** fetch's credentials mode, such as `include` for a session cookie on another origin. */
  credentials?: RequestCredentials
  /** The fetch implementation. Default: the global fetch. */
  fetch?: typeof fetch
  /**
   * Cache reads: `true` for a CollectionCache kept until invalidated, or a
   * cache of your own. Default: no cache (every read asks the server).
   */
  cache?: boolean | CollectionCache
}

/** RequestOptions are the parts of one request. */
export interface RequestOptions {
  query?: URLSearchParams | Record<string, string | number | boolean | undefined>
  body?: unknown
  headers?: Record<string, string>
  signal?: AbortSignal | undefined
}

/** MutationListener is called after every successful write through the client, and for every change the team's change stream reports (TeamClient.subscribe). */
export type MutationListener = (mutation: Mutation) => void

/**
 * KitClient talks to kit's HTTP API. It owns fetch, the collection
 * registry (read once from `GET {prefix}/kit/collections`), the optional
 * read cache and the mutation listeners; it has no framework code.
 *
 *     const kit = new KitClient({ baseURL: 'http://127.0.0.1:8080', token })
 *     const page = await kit.team('acme').collection('shopProducts').list({ search: 'lamp', sort: '-price' })
 */
export class KitClient {
  /** The read cache, when enabled. */
  readonly cache: CollectionCache | undefined
  private readonly options: KitClientOptions
  private readonly fetchImpl: typeof fetch
  private configs: Promise<CollectionConfigs> | undefined
  private readonly listeners = new Set<MutationListener>()
  /** Correlation ids of this client's recent writes, so the change stream does not report them twice. */
  private readonly ownWrites = new Set<string>()

  /** @internal the fetch in use. */
  get fetcher(): typeof fetch {
    return this.fetchImpl
  }

  /** @internal fetch's credentials mode, when set. */
  get credentials(): RequestCredentials | undefined {
    return this.options.credentials
  }

  constructor(options: KitClientOptions = {}) {
    this.options = options
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
    this.cache = options.cache === true ? new CollectionCache() : options.cache || undefined
  }

  /** url returns the absolute (or page-relative) URL of an API path such as `/teams/acme/shop-products`. */
  url(path: string, query?: URLSearchParams): string {
    const base = (this.options.baseURL ?? '').replace(/\/+$/, '')
    const prefix = '/' + (this.options.prefix ?? '/api').replace(/^\/+|\/+$/g, '')
    const qs = query && [...query.keys()].length ? `?${query.toString()}` : ''
    return `${base}${prefix === '/' ? '' : prefix}/${path.replace(/^\/+/, '')}${qs}`
  }

  /**
   * request sends one request to an API path and resolves with the decoded
   * JSON body (undefined for 204). A non-2xx answer rejects with a KitError
   * carrying kit's error body; a network failure with a KitError of status 0.
   */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    let query: URLSearchParams | undefined
    if (opts.query instanceof URLSearchParams) query = opts.query
    else if (opts.query) {
      query = new URLSearchParams()
      for (const [k, v] of Object.entries(opts.query)) if (v !== undefined) query.set(k, String(v))
    }
    const headers: Record<string, string> = { Accept: 'application/json', ...(await this.authHeaders()), ...opts.headers }
    if (method !== 'GET' && method !== 'HEAD' && !headers['X-Correlation-Id']) {
      const id = correlationId()
      headers['X-Correlation-Id'] = id
      this.ownWrites.add(id)
      if (this.ownWrites.size > 1000) this.ownWrites.delete(this.ownWrites.values().next().value!)
    }
    let body: string | undefined
    if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json'
      body = JSON.stringify(opts.body)
    }
    const init: RequestInit = { method, headers }
    if (body !== undefined) init.body = body
    if (opts.signal) init.signal = opts.signal
    if (this.options.credentials) init.credentials = this.options.credentials
    let res: Response
    try {
      res = await this.fetchImpl(this.url(path, query), init)
    } catch (cause) {
      if (opts.signal?.aborted) throw cause
      throw new KitError({
        status: 0,
        statusText: 'Network Error',
        message: `${method} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause,
      })
    }
    if (!res.ok) throw await errorFromResponse(res)
    if (res.status === 204) return undefined as T
    const text = await res.text()
    if (!text) return undefined as T
    try {
      return JSON.parse(text) as T
    } catch (cause) {
      throw new KitError({
        status: res.status,
        statusText: res.statusText,
        message: `${method} ${path}: the answer is not JSON`,
        cause,
      })
    }
  }

  /** @internal the configured headers and the bearer token, for every request. */
  async authHeaders(): Promise<Record<string, string>> {
    const headers: Record<string, string> = { ...this.options.headers }
    const token = typeof this.options.token === 'function' ? await this.options.token() : this.options.token
    if (token) headers.Authorization = `Bearer ${token}`
    return headers
  }

  /**
   * collections returns the registry (`kitCollections` shape), fetched once
   * and kept; `force` fetches it again.
   */
  collections(opts: { force?: boolean } = {}): Promise<CollectionConfigs> {
    if (!this.configs || opts.force) {
      const p = this.request<CollectionConfigs>('GET', 'kit/collections')
      this.configs = p
      p.catch(() => {
        if (this.configs === p) this.configs = undefined
      })
    }
    return this.configs
  }

  /** config returns one collection's config, or undefined when the key is not registered. */
  async config(key: string): Promise<CollectionConfig | undefined> {
    return (await this.collections())[key]
  }

  /** team scopes requests to a team, by id or slug. */
  team(idOrSlug: string): TeamClient {
    return new TeamClient(this, idOrSlug)
  }

  /** superAdmin gives the super-admin routes (callers whose global role is `admin`). */
  superAdmin(): SuperAdminClient {
    return new SuperAdminClient(this)
  }

  /** onMutation registers a listener for successful writes; it returns the function that removes it. */
  onMutation(listener: MutationListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * invalidate drops the cached reads of a collection and of every
   * collection in its `references` (the spec's rule), and returns the
   * registry keys it invalidated.
   */
  async invalidate(collection: string): Promise<string[]> {
    const keys = [collection]
    const cfg = await this.config(collection).catch(() => undefined)
    for (const ref of Object.values(cfg?.references ?? {})) if (!keys.includes(ref)) keys.push(ref)
    for (const key of keys) this.cache?.invalidateCollection(key)
    return keys
  }

  /**
   * @internal runs for a change from the stream: drops the cached reads it
   * names, then tells the mutation listeners (unless the change is this
   * client's own write, which it reported already).
   */
  streamed(change: ChangeEvent, team: string): void {
    const invalidated: string[] = []
    for (const key of change.invalidate) {
      const m = /^collection:(.+):\*$/.exec(key)
      if (!m) continue
      invalidated.push(m[1]!)
      this.cache?.invalidateCollection(m[1]!)
    }
    if (this.ownWrites.delete(change.correlationId)) return
    const ids = change.itemIds ?? (change.itemId ? [change.itemId] : [])
    this.notify({ operation: change.operation, collection: change.collection, team, ids, invalidated, source: 'stream' })
  }

  /** @internal runs when the stream could not resume: everything cached may be stale. */
  async streamReset(team: string): Promise<void> {
    this.cache?.clear()
    const keys = Object.keys(await this.collections().catch(() => ({})))
    this.notify({ operation: 'reset', collection: '', team, ids: [], invalidated: keys, source: 'stream' })
  }

  private notify(mutation: Mutation): void {
    for (const l of [...this.listeners]) {
      try {
        l(mutation)
      } catch (err) {
        console.error('[kit] mutation listener failed', err)
      }
    }
  }

  /** @internal runs after a write: invalidates, then tells the listeners. */
  async mutated(m: Omit<Mutation, 'invalidated'>): Promise<void> {
    const invalidated = await this.invalidate(m.collection)
    this.notify({ ...m, invalidated, source: 'client' })
  }

  /** @internal reads through the cache when there is one. */
  async cached<T>(key: string, opts: ReadOptions, load: () => Promise<T>): Promise<T> {
    if (this.cache && !opts.force) {
      const hit = this.cache.get<T>(key)
      if (hit !== undefined) return hit
    }
    const value = await load()
    this.cache?.set(key, value)
    return value
  }
}

/** TeamClient scopes requests to one team (id or slug). */
export class TeamClient {
  constructor(
    readonly client: KitClient,
    readonly team: string,
  ) {}

  /** collection addresses a collection by registry key (`shopProducts`). */
  collection<T extends KitRecord = KitRecord>(key: string): CollectionClient<T> {
    return new CollectionClient<T>(this.client, this.team, key)
  }

  /**
   * subscribe follows the team's change stream (`GET kit-changes`, with
   * fetch so a bearer token or a cookie works) until `close()`: each change
   * drops the cached reads it names and reaches the client's mutation
   * listeners (so the Vue composables refresh), and a broken stream
   * reconnects with Last-Event-ID after a doubling backoff.
   */
  subscribe(opts: SubscribeOptions = {}): ChangeSubscription {
    const client = this.client
    return openChangeStream(
      {
        url: (path, query) => client.url(path, query),
        headers: () => client.authHeaders(),
        fetchImpl: client.fetcher,
        credentials: client.credentials,
        changed: (change, team) => client.streamed(change, team),
        reset: (team) => client.streamReset(team),
      },
      this.team,
      opts,
    )
  }

  /** events lists the team's tracked events (the events add-on), newest first. */
  events(query: EventListQuery = {}, opts: { signal?: AbortSignal } = {}): Promise<ListResponse<KitEvent>> {
    return this.client.request('GET', `teams/${enc(this.team)}/kit-events`, {
      query: encodeListQuery(query as ListQuery),
      signal: opts.signal,
    })
  }
}

/** SuperAdminClient reads any team's records (global role `admin`). */
export class SuperAdminClient {
  constructor(readonly client: KitClient) {}

  /** item reads `/api/super-admin/<collection>/<id>`; collection is the registry key or apiPath. */
  item<T extends KitRecord = KitRecord>(collection: string, id: string, opts: ReadOptions = {}): Promise<T> {
    return this.client.cached(collectionCacheKey(collection, `super-admin:item/${id}`), opts, () =>
      this.client.request<T>('GET', `super-admin/${enc(collection)}/${enc(id)}`, { signal: opts.signal }),
    )
  }
}

/** UpdateOptions apply to an update. */
export interface UpdateOptions {
  /** Sent as `If-Match` (an optimistic-concurrency precondition). */
  ifMatch?: string
}

/**
 * CollectionClient is one collection of one team. The endpoint is the
 * collection's `apiPath` from the registry (the key itself when the key is
 * not registered).
 */
export class CollectionClient<T extends KitRecord = KitRecord> {
  constructor(
    readonly client: KitClient,
    readonly team: string,
    readonly key: string,
  ) {}

  private async base(): Promise<{ path: string; strategy: FetchStrategy }> {
    const cfg = await this.client.config(this.key)
    return {
      path: `teams/${enc(this.team)}/${cfg?.apiPath ?? this.key}`,
      strategy: cfg?.fetchStrategy ?? 'query',
    }
  }

  private cacheKey(query: string): string {
    return collectionCacheKey(this.key, `${this.team}:${query}`)
  }

  /** list reads a page: `{items, pagination}`. */
  async list(query: ListQuery = {}, opts: ReadOptions = {}): Promise<ListResponse<T>> {
    const params = encodeListQuery(query)
    return this.client.cached(this.cacheKey(`list?${params}`), opts, async () => {
      const { path } = await this.base()
      return this.client.request<ListResponse<T>>('GET', path, { query: params, signal: opts.signal })
    })
  }

  /** items reads the records among ids in the order asked (`?ids=`); missing ones are left out. */
  async items(ids: string[], opts: ReadOptions = {}): Promise<T[]> {
    const params = encodeListQuery({ ids })
    return this.client.cached(this.cacheKey(`list?${params}`), opts, async () => {
      const { path } = await this.base()
      return this.client.request<T[]>('GET', path, { query: params, signal: opts.signal })
    })
  }

  /**
   * item reads one record by the collection's fetchStrategy: `restful` ->
   * `GET /{id}`; `query` -> `GET ?ids=<id>` and the first element (a 404
   * KitError when there is none).
   */
  async item(id: string, opts: ReadOptions = {}): Promise<T> {
    return this.client.cached(this.cacheKey(`item/${id}`), opts, async () => {
      const { path, strategy } = await this.base()
      if (strategy === 'restful') {
        return this.client.request<T>('GET', `${path}/${enc(id)}`, { signal: opts.signal })
      }
      const found = await this.client.request<T[]>('GET', path, {
        query: encodeListQuery({ ids: [id] }),
        signal: opts.signal,
      })
      const first = found[0]
      if (!first) throw new KitError({ status: 404, statusText: 'Not Found', message: 'record not found' })
      return first
    })
  }

  /** create stores a record and resolves with it as stored. */
  async create(data: Partial<T> | Record<string, unknown>): Promise<T> {
    const { path } = await this.base()
    const rec = await this.client.request<T>('POST', path, { body: data })
    await this.client.mutated({ operation: 'create', collection: this.key, team: this.team, ids: [rec.id] })
    return rec
  }

  /** update changes the given fields and resolves with the stored record. */
  async update(id: string, data: Partial<T> | Record<string, unknown>, opts: UpdateOptions = {}): Promise<T> {
    const { path } = await this.base()
    const headers: Record<string, string> = {}
    if (opts.ifMatch !== undefined) headers['If-Match'] = opts.ifMatch
    const rec = await this.client.request<T>('PATCH', `${path}/${enc(id)}`, { body: data, headers })
    await this.client.mutated({ operation: 'update', collection: this.key, team: this.team, ids: [id] })
    return rec
  }

  /**
   * delete removes records: one id -> `DELETE /{id}`; several ->
   * `DELETE ?ids=a,b`, all or nothing (at most 100 ids).
   */
  async delete(ids: string | string[]): Promise<void> {
    const list = Array.isArray(ids) ? ids : [ids]
    if (list.length === 0) return
    const { path } = await this.base()
    if (list.length === 1) {
      await this.client.request<void>('DELETE', `${path}/${enc(list[0]!)}`)
    } else {
      await this.client.request<void>('DELETE', path, { query: encodeListQuery({ ids: list }) })
    }
    await this.client.mutated({ operation: 'delete', collection: this.key, team: this.team, ids: list })
  }

  /** move puts a node (and its subtree) under a new parent at a position; resolves with the node. */
  async move(id: string, target: MoveTarget): Promise<T> {
    const { path } = await this.base()
    const rec = await this.client.request<T>('PATCH', `${path}/${enc(id)}/move`, { body: target })
    await this.client.mutated({ operation: 'move', collection: this.key, team: this.team, ids: [id] })
    return rec
  }

  /** reorder orders siblings (every id, or some `{id, order}`); resolves with the siblings in order. */
  async reorder(input: ReorderInput): Promise<T[]> {
    const { path } = await this.base()
    const body =
      input.length > 0 && typeof input[0] === 'object' ? { updates: input } : { ids: input as string[] }
    const res = await this.client.request<{ items: T[] }>('PATCH', `${path}/reorder`, { body })
    const ids = (input as Array<string | { id: string }>).map((x) => (typeof x === 'string' ? x : x.id))
    await this.client.mutated({ operation: 'reorder', collection: this.key, team: this.team, ids })
    return res.items
  }

  /** tree reads the whole tree, or the subtree of root, depth first with siblings in order. */
  async tree(opts: ReadOptions & { root?: string } = {}): Promise<T[]> {
    const params = new URLSearchParams()
    if (opts.root) params.set('root', opts.root)
    return this.client.cached(this.cacheKey(`tree?${params}`), opts, async () => {
      const { path } = await this.base()
      const res = await this.client.request<{ items: T[] }>('GET', `${path}/tree`, { query: params, signal: opts.signal })
      return res.items
    })
  }
}

function correlationId(): string {
  const b = new Uint8Array(16)
  globalThis.crypto.getRandomValues(b)
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('')
}

function enc(segment: string): string {
  return encodeURIComponent(segment)
}
