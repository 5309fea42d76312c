import { Batch } from './batch'
import { CollectionCache, collectionCacheKey } from './cache'
import { openChangeStream, type ChangeEvent, type ChangeSubscription, type SubscribeOptions } from './changes'
import { errorFromResponse, KitError } from './errors'
import { sendForm, type FileChanges, type KitFile } from './files'
import { openPresenceStream, type PresenceOptions, type PresenceSubscription } from './presence'
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
  RecordShape,
  ReorderInput,
  TrashedRecord,
  ExportFormat,
  ImportResult,
  ImportRejectedRow,
  Backup,
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
  /**
   * How many times an idempotent request (GET, HEAD, OPTIONS, PUT, DELETE)
   * is sent again after a busy answer: a 503 with a `Retry-After` of at
   * most MAX_BUSY_WAIT_MS, which kit sends when its scan slots are full.
   * The client waits what the header asks first. Default
   * DEFAULT_BUSY_RETRIES; 0 turns it off.
   */
  busyRetries?: number
}

/** DEFAULT_BUSY_RETRIES is how many times a client retries a busy answer unless `busyRetries` says otherwise. */
export const DEFAULT_BUSY_RETRIES = 2

/** MAX_BUSY_WAIT_MS is the longest `Retry-After` a busy answer may ask for and still be retried; one asking longer rejects at once. */
export const MAX_BUSY_WAIT_MS = 10_000

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'])

/**
 * retryAfterMs reads a `Retry-After` header (delay-seconds or an HTTP
 * date) as milliseconds from now; undefined when there is none or it
 * cannot be read, 0 for a date in the past.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  const v = value?.trim() ?? ''
  if (/^\d+$/.test(v)) return Number(v) * 1000
  // A number that is not delay-seconds ("-1", "1.5") is no date either,
  // though Date.parse would read some of them as a year.
  if (v === '' || /^[-+\d.]+$/.test(v)) return undefined
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(at - now, 0)
}

/** sleep resolves after ms, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** RequestOptions are the parts of one request. */
export interface RequestOptions {
  query?: URLSearchParams | Record<string, string | number | boolean | undefined>
  body?: unknown
  headers?: Record<string, string>
  signal?: AbortSignal | undefined
  /**
   * A body sent as is (CSV text, a Blob) with its Content-Type, instead of
   * the JSON of `body`.
   */
  raw?: { data: BodyInit; contentType: string }
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
  /**
   * Correlation ids of this client's recent writes, each with the number of
   * changes the change stream has yet to report for it (one for a single
   * write, one per request for a batch), so it does not report them twice.
   */
  private readonly ownWrites = new Map<string, number>()

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
    return (await this.exchange<T>(method, path, opts)).body
  }

  /**
   * exchange is request that also resolves with the answer's headers (the
   * `ETag` of a single record, for instance).
   */
  async exchange<T>(method: string, path: string, opts: RequestOptions = {}): Promise<{ body: T; headers: Headers }> {
    const res = await this.send(method, path, opts)
    if (res.status === 204) return { body: undefined as T, headers: res.headers }
    const text = await res.text()
    if (!text) return { body: undefined as T, headers: res.headers }
    try {
      return { body: JSON.parse(text) as T, headers: res.headers }
    } catch (cause) {
      throw new KitError({
        status: res.status,
        statusText: res.statusText,
        message: `${method} ${path}: the answer is not JSON`,
        cause,
      })
    }
  }

  /**
   * send sends one request to an API path and resolves with the response
   * itself, unread, when it is a 2xx (an export's attachment, say); a non-2xx
   * answer rejects with a KitError, a network failure with a KitError of
   * status 0. A busy answer to an idempotent request is retried after its
   * `Retry-After` (see `busyRetries`); the last one rejects as a 503.
   */
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    let query: URLSearchParams | undefined
    if (opts.query instanceof URLSearchParams) query = opts.query
    else if (opts.query) {
      query = new URLSearchParams()
      for (const [k, v] of Object.entries(opts.query)) if (v !== undefined) query.set(k, String(v))
    }
    const headers: Record<string, string> = { Accept: 'application/json', ...(await this.authHeaders()), ...opts.headers }
    if (method !== 'GET' && method !== 'HEAD' && !headers['X-Correlation-Id']) {
      headers['X-Correlation-Id'] = this.ownWrite(1)
    }
    let body: BodyInit | undefined
    if (opts.raw) {
      headers['Content-Type'] = opts.raw.contentType
      body = opts.raw.data
    } else if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json'
      body = JSON.stringify(opts.body)
    }
    const init: RequestInit = { method, headers }
    if (body !== undefined) init.body = body
    if (opts.signal) init.signal = opts.signal
    if (this.options.credentials) init.credentials = this.options.credentials
    const url = this.url(path, query)
    const busyRetries = IDEMPOTENT.has(method) && !(body instanceof ReadableStream) ? (this.options.busyRetries ?? DEFAULT_BUSY_RETRIES) : 0
    for (let busy = 0; ; busy++) {
      let res: Response
      try {
        res = await this.fetchImpl(url, init)
      } catch (cause) {
        if (opts.signal?.aborted) throw cause
        throw new KitError({
          status: 0,
          statusText: 'Network Error',
          message: `${method} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
          cause,
        })
      }
      if (res.ok) return res
      const wait = res.status === 503 && busy < busyRetries ? retryAfterMs(res.headers.get('Retry-After')) : undefined
      if (wait === undefined || wait > MAX_BUSY_WAIT_MS) throw await errorFromResponse(res)
      await res.body?.cancel()
      await sleep(wait, opts.signal)
    }
  }

  /**
   * @internal sendFiles sends changes as a multipart body to an API path
   * (see CollectionClient.createWithFiles).
   */
  async sendFiles<T>(method: string, path: string, changes: FileChanges, headers: Record<string, string> = {}): Promise<{ body: T; headers: Headers }> {
    const all: Record<string, string> = { Accept: 'application/json', ...(await this.authHeaders()), ...headers }
    all['X-Correlation-Id'] = this.ownWrite(1)
    const opts: Parameters<typeof sendForm>[4] = { fetch: this.fetchImpl }
    if (changes.onProgress) opts.onProgress = changes.onProgress
    if (changes.signal) opts.signal = changes.signal
    if (this.options.credentials) opts.credentials = this.options.credentials
    return sendForm<T>(this.url(path), method, changes, all, opts)
  }

  /**
   * fileURL returns the URL of a file a record answered (signed, so an
   * `<img>` tag or a link may use it without a token until it expires),
   * or of its thumbnail of size `thumb` ("100x100", one of the field's
   * meta.thumbs).
   */
  fileURL(file: KitFile, thumb?: string): string {
    const base = (this.options.baseURL ?? '').replace(/\/+$/, '')
    const url = /^https?:\/\//.test(file.url) ? file.url : base + file.url
    if (!thumb) return url
    return url + (url.includes('?') ? '&' : '?') + 'thumb=' + encodeURIComponent(thumb)
  }

  /**
   * @internal returns a new correlation id for a write of this client that
   * the change stream reports as `changes` changes; streamed passes none
   * of them on, since the write tells the listeners itself.
   */
  ownWrite(changes: number): string {
    const id = correlationId()
    this.ownWrites.set(id, changes)
    if (this.ownWrites.size > 1000) this.ownWrites.delete(this.ownWrites.keys().next().value!)
    return id
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
    const left = this.ownWrites.get(change.correlationId)
    if (left !== undefined) {
      if (left > 1) this.ownWrites.set(change.correlationId, left - 1)
      else this.ownWrites.delete(change.correlationId)
      return
    }
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

  /**
   * @internal runs after a purge: the trash changed, the collection's
   * reads did not, so nothing is invalidated.
   */
  notifyTrash(collection: string, team: string, id: string): void {
    this.notify({ operation: 'purge', collection, team, ids: [id], invalidated: [], source: 'client' })
  }

  /** @internal runs after a write: invalidates, then tells the listeners. */
  async mutated(m: Omit<Mutation, 'invalidated'>): Promise<void> {
    const invalidated = await this.invalidate(m.collection)
    this.notify({ ...m, invalidated, source: 'client' })
  }

  /**
   * @internal reads through the cache when there is one. An answer is
   * stored only when no invalidation happened while it was on its way, so
   * a read that overlapped a write never leaves the older state cached.
   */
  async cached<T>(key: string, opts: ReadOptions, load: () => Promise<T>): Promise<T> {
    if (this.cache && !opts.force) {
      const hit = this.cache.get<T>(key)
      if (hit !== undefined) return hit
    }
    const generation = this.cache?.generation ?? 0
    const value = await load()
    this.cache?.setIfCurrent(key, value, generation)
    return value
  }
}

/** TeamClient scopes requests to one team (id or slug). */
export class TeamClient {
  constructor(
    readonly client: KitClient,
    readonly team: string,
  ) {}

  /**
   * collection addresses a collection by registry key (`shopProducts`). T is
   * its record type and Q its list query type (a generated `Product` and
   * `ProductQuery`, say).
   */
  collection<T extends RecordShape = KitRecord, Q extends object = ListQuery>(key: string): CollectionClient<T, Q> {
    return new CollectionClient<T, Q>(this.client, this.team, key)
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

  /**
   * batch returns an empty batch of the team's writes, run in one
   * transaction by `run()`: all of them or none. It makes no request.
   */
  batch(): Batch {
    return new Batch(this)
  }

  /**
   * presence keeps the team's presence channel (`GET kit-presence`) open
   * for a collection (and a record of it) until `close()`: while it is
   * open, the other members who have the same collection open see the
   * caller, and `onPresence` hears who they are. A broken stream
   * reconnects after a doubling backoff.
   */
  presence(opts: PresenceOptions): PresenceSubscription {
    const client = this.client
    return openPresenceStream(
      { url: (path, query) => client.url(path, query), headers: () => client.authHeaders(), fetchImpl: client.fetcher, credentials: client.credentials },
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

  /**
   * revertEvent undoes update event `id` of the team: the old values of the
   * fields it changed are written back as a new update, and the record
   * written resolves. Given the event itself (from `events`) rather than
   * its id, the client also drops the collection's cached reads and tells
   * the mutation listeners. A field that holds another value now rejects with a
   * 409 KitError whose `data.fields` names it (see revertConflicts) and
   * nothing is written, unless `force`; an event of another team is a 404,
   * an event that is no update a 400.
   */
  async revertEvent(event: string | { id?: string; collectionName: string }, opts: { force?: boolean } = {}): Promise<KitRecord> {
    const id = typeof event === 'string' ? event : (event.id ?? '')
    const rec = await this.client.request<KitRecord>('POST', `teams/${enc(this.team)}/kit-events/${enc(id)}/revert`, {
      body: { force: opts.force === true },
    })
    if (typeof event !== 'string') {
      await this.client.mutated({ operation: 'update', collection: event.collectionName, team: this.team, ids: [rec.id] })
    }
    return rec
  }
}

/** SuperAdminClient reads any team's records (global role `admin`). */
export class SuperAdminClient {
  constructor(readonly client: KitClient) {}

  /** item reads `/api/super-admin/<collection>/<id>`; collection is the registry key or apiPath. */
  item<T extends RecordShape = KitRecord>(collection: string, id: string, opts: ReadOptions = {}): Promise<T> {
    return this.client.cached(collectionCacheKey(collection, `super-admin:item/${id}`), opts, () =>
      this.client.request<T>('GET', `super-admin/${enc(collection)}/${enc(id)}`, { signal: opts.signal }),
    )
  }

  /** backups lists the server's backups, newest first (`GET /api/super-admin/backups`); 404 when it keeps none. */
  async backups(opts: { signal?: AbortSignal } = {}): Promise<Backup[]> {
    const res = await this.client.request<{ items: Backup[] }>('GET', 'super-admin/backups', { signal: opts.signal })
    return res.items
  }

  /** createBackup makes a backup now, the database and the files (`POST /api/super-admin/backups`). */
  createBackup(): Promise<Backup> {
    return this.client.request<Backup>('POST', 'super-admin/backups')
  }

  /**
   * downloadBackup asks for the archive `name` and resolves with the
   * response unread: `await res.blob()` for a download, `res.body` to
   * stream it.
   */
  downloadBackup(name: string, opts: { signal?: AbortSignal } = {}): Promise<Response> {
    return this.client.send('GET', `super-admin/backups/${enc(name)}`, { headers: { Accept: 'application/x-tar' }, signal: opts.signal })
  }
}

/**
 * UpdateOptions apply to an update, a move or the delete of one record.
 */
export interface UpdateOptions {
  /**
   * Sent as `If-Match`: the write goes ahead only if the record's ETag is
   * still this one (from `itemWithETag`, `createWithETag`,
   * `updateWithETag`, or the `etag` of a previous 412). Otherwise nothing
   * is written and the call rejects with a KitError of status 412 whose
   * `etag` is the current ETag and `data.current` the record as stored
   * now. `*` matches any existing record.
   */
  ifMatch?: string
}

/** Versioned is a record with its ETag, for a conditional write. */
export interface Versioned<T> {
  item: T
  /** The record's ETag as the server sent it, quotes included ('' when it sent none). */
  etag: string
}

function ifMatchHeaders(opts: UpdateOptions): Record<string, string> {
  return opts.ifMatch !== undefined ? { 'If-Match': opts.ifMatch } : {}
}

/**
 * CollectionClient is one collection of one team. The endpoint is the
 * collection's `apiPath` from the registry (the key itself when the key is
 * not registered).
 */
export class CollectionClient<T extends RecordShape = KitRecord, Q extends object = ListQuery> {
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
  async list(query: Q = {} as Q, opts: ReadOptions = {}): Promise<ListResponse<T>> {
    const params = encodeListQuery(query as ListQuery)
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

  /**
   * itemWithETag reads one record as `item` does, with its ETag, for a
   * conditional update, delete or move. It always asks the server (a
   * conditional write needs the current ETag, not a cached one); for a
   * `query` collection the `?ids=<id>` answer carries the record's ETag.
   */
  async itemWithETag(id: string, opts: { signal?: AbortSignal } = {}): Promise<Versioned<T>> {
    const { path, strategy } = await this.base()
    if (strategy === 'restful') {
      const res = await this.client.exchange<T>('GET', `${path}/${enc(id)}`, { signal: opts.signal })
      return { item: res.body, etag: res.headers.get('ETag') ?? '' }
    }
    const res = await this.client.exchange<T[]>('GET', path, { query: encodeListQuery({ ids: [id] }), signal: opts.signal })
    const first = res.body[0]
    if (!first) throw new KitError({ status: 404, statusText: 'Not Found', message: 'record not found' })
    return { item: first, etag: res.headers.get('ETag') ?? '' }
  }

  /** create stores a record and resolves with it as stored. */
  async create(data: Partial<T> | Record<string, unknown>): Promise<T> {
    return (await this.createWithETag(data)).item
  }

  /** createWithETag is create that also resolves with the new record's ETag. */
  async createWithETag(data: Partial<T> | Record<string, unknown>): Promise<Versioned<T>> {
    const { path } = await this.base()
    const res = await this.client.exchange<T>('POST', path, { body: data })
    await this.client.mutated({ operation: 'create', collection: this.key, team: this.team, ids: [res.body.id] })
    return { item: res.body, etag: res.headers.get('ETag') ?? '' }
  }

  /**
   * createWithFiles stores a record with files, sent as
   * multipart/form-data: `values` (the other fields), `uploads`, with
   * `onProgress` called as the body goes out. A refused upload rejects
   * with a KitError (413 too large, 415 a type the field does not take,
   * 400) whose data.fields names the field.
   */
  async createWithFiles(changes: FileChanges): Promise<T> {
    const { path } = await this.base()
    const res = await this.client.sendFiles<T>('POST', path, changes)
    await this.client.mutated({ operation: 'create', collection: this.key, team: this.team, ids: [res.body.id] })
    return res.body
  }

  /**
   * updateFiles changes a record's files (uploads replace, or append with
   * `append`; `remove` by name; `clear` a field) and values, as
   * multipart/form-data, and resolves with the stored record.
   */
  async updateFiles(id: string, changes: FileChanges, opts: UpdateOptions = {}): Promise<T> {
    const { path } = await this.base()
    const res = await this.client.sendFiles<T>('PATCH', `${path}/${enc(id)}`, changes, ifMatchHeaders(opts))
    await this.client.mutated({ operation: 'update', collection: this.key, team: this.team, ids: [id] })
    return res.body
  }

  /** removeFile removes the file `name` of a record's field and resolves with the stored record. */
  async removeFile(id: string, field: string, name: string, opts: UpdateOptions = {}): Promise<T> {
    return this.updateFiles(id, { remove: { [field]: [name] } }, opts)
  }

  /**
   * update changes the given fields and resolves with the stored record;
   * with `ifMatch`, only if the record has not changed since (else a 412
   * KitError).
   */
  async update(id: string, data: Partial<T> | Record<string, unknown>, opts: UpdateOptions = {}): Promise<T> {
    return (await this.updateWithETag(id, data, opts)).item
  }

  /** updateWithETag is update that also resolves with the record's new ETag, for the next conditional update. */
  async updateWithETag(id: string, data: Partial<T> | Record<string, unknown>, opts: UpdateOptions = {}): Promise<Versioned<T>> {
    const { path } = await this.base()
    const res = await this.client.exchange<T>('PATCH', `${path}/${enc(id)}`, { body: data, headers: ifMatchHeaders(opts) })
    await this.client.mutated({ operation: 'update', collection: this.key, team: this.team, ids: [id] })
    return { item: res.body, etag: res.headers.get('ETag') ?? '' }
  }

  /**
   * delete removes records: one id -> `DELETE /{id}`; several ->
   * `DELETE ?ids=a,b` all or nothing (at most 100 ids). `ifMatch` is for
   * one id only (the bulk endpoint has no ETags): with several it rejects
   * with a TypeError before sending anything.
   */
  async delete(ids: string | string[], opts: UpdateOptions = {}): Promise<void> {
    const list = Array.isArray(ids) ? ids : [ids]
    if (list.length === 0) return
    if (list.length > 1 && opts.ifMatch !== undefined) {
      throw new TypeError('delete: ifMatch applies to one record; delete several records without it')
    }
    const { path } = await this.base()
    if (list.length === 1) {
      await this.client.request<void>('DELETE', `${path}/${enc(list[0]!)}`, { headers: ifMatchHeaders(opts) })
    } else {
      await this.client.request<void>('DELETE', path, { query: encodeListQuery({ ids: list }) })
    }
    await this.client.mutated({ operation: 'delete', collection: this.key, team: this.team, ids: list })
  }

  /**
   * move puts a node (and its subtree) under a new parent at a position;
   * resolves with the node. With `ifMatch`, only if the node has not
   * changed since.
   */
  async move(id: string, target: MoveTarget, opts: UpdateOptions = {}): Promise<T> {
    const { path } = await this.base()
    const rec = await this.client.request<T>('PATCH', `${path}/${enc(id)}/move`, { body: target, headers: ifMatchHeaders(opts) })
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

  /**
   * trash lists the team's trashed records of a softDelete collection,
   * newest first (`GET /trash`); a collection without softDelete rejects
   * with a 404 KitError.
   */
  async trash(query: { page?: number; pageSize?: number } = {}, opts: { signal?: AbortSignal } = {}): Promise<ListResponse<TrashedRecord<T>>> {
    const { path } = await this.base()
    return this.client.request<ListResponse<TrashedRecord<T>>>('GET', `${path}/trash`, {
      query: { page: query.page, pageSize: query.pageSize },
      signal: opts.signal,
    })
  }

  /**
   * restore puts a trashed record back, with the same id, and resolves with
   * it: a 400 KitError whose data.fields names a reference to a record that
   * is gone, a 409 for a unique value taken since, a 404 when it is not in
   * the team's trash. On a refusal it stays in the trash.
   */
  async restore(id: string): Promise<T> {
    const { path } = await this.base()
    const rec = await this.client.request<T>('POST', `${path}/${enc(id)}/restore`)
    await this.client.mutated({ operation: 'restore', collection: this.key, team: this.team, ids: [id] })
    return rec
  }

  /** purge removes a trashed record for good (`DELETE /{id}/trash`). */
  async purge(id: string): Promise<void> {
    const { path } = await this.base()
    await this.client.request<void>('DELETE', `${path}/${enc(id)}/trash`)
    this.client.notifyTrash(this.key, this.team, id)
  }

  /**
   * export asks for every record a list query selects (filter, search and
   * sort apply; page, pageSize and ids are refused with a 400) as CSV, JSON
   * or NDJSON, and resolves with the response unread: `await res.blob()`
   * for a download, `res.body` to stream it. Its Content-Disposition names
   * the file (`shop-products.csv`).
   */
  async export(format: ExportFormat, query: Q = {} as Q, opts: { signal?: AbortSignal } = {}): Promise<Response> {
    const { path } = await this.base()
    const params = encodeListQuery(query as ListQuery)
    params.set('format', format)
    return this.client.send('GET', `${path}/export`, {
      query: params,
      headers: { Accept: format === 'csv' ? 'text/csv' : format === 'ndjson' ? 'application/x-ndjson' : 'application/json' },
      signal: opts.signal,
    })
  }

  /**
   * import creates a record for every row of a CSV (a header naming the
   * fields), JSON (an array of objects) or NDJSON body: all rows or none.
   * A refused import rejects with a 400 KitError; importRejections(err)
   * lists every refused row with its line, field and reason.
   */
  async import(data: BodyInit, format: ExportFormat): Promise<ImportResult> {
    const { path } = await this.base()
    const res = await this.client.request<ImportResult>('POST', `${path}/import`, {
      raw: { data, contentType: importTypes[format] },
    })
    await this.client.mutated({ operation: 'create', collection: this.key, team: this.team, ids: [] })
    return res
  }
}

/** The Content-Type an import of each format sends. */
const importTypes = { csv: 'text/csv', json: 'application/json', ndjson: 'application/x-ndjson' } as const

/**
 * importRejections returns the refused rows of an import's 400 KitError
 * (its `data.rejected`), or an empty list for any other error.
 */
export function importRejections(err: unknown): ImportRejectedRow[] {
  if (!(err instanceof KitError) || err.status !== 400) return []
  const rows = err.data?.rejected
  return Array.isArray(rows) ? (rows as ImportRejectedRow[]) : []
}

/**
 * revertConflicts returns the fields a revert's 409 KitError names, each
 * with what happened to it ("changed since the event"), or an empty object
 * for any other error.
 */
export function revertConflicts(err: unknown): Record<string, string> {
  if (!(err instanceof KitError) || err.status !== 409) return {}
  const fields = err.data?.fields
  return fields && typeof fields === 'object' && !Array.isArray(fields) ? (fields as Record<string, string>) : {}
}

function correlationId(): string {
  const b = new Uint8Array(16)
  globalThis.crypto.getRandomValues(b)
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('')
}

function enc(segment: string): string {
  return encodeURIComponent(segment)
}
