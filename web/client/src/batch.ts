import type { TeamClient, UpdateOptions } from './client'
import type { KitRecord, MoveTarget, Mutation, RecordShape, ReorderInput } from './types'

declare const answer: unique symbol

/**
 * BatchIndex is the index of a request in a batch (a number, counted from
 * 0), typed with what the request answers, so that `BatchResults.get`
 * gives the answer its type: the record for a create, an update or a
 * move, `{items}` for a reorder, undefined for a delete.
 */
export type BatchIndex<T = unknown> = number & { readonly [answer]?: T }

/** BatchResult is what one request of a batch answered, as it would have answered alone. */
export interface BatchResult<T = unknown> {
  /** The request's status: 201 for a create, 200 for an update, a move or a reorder, 204 for a delete. */
  status: number
  /** The headers it answered that a batch passes on: `ETag` and `Location` (empty when none). */
  headers: Record<string, string>
  /** Its decoded body; undefined for a 204. */
  body: T
  /** The `ETag` header, quotes included ('' when none), for the next conditional write. */
  etag: string
}

/** BatchResults are the answers of a batch's requests, in order. */
export class BatchResults {
  /** What each request answered, in the order the batch listed them. */
  readonly responses: readonly BatchResult[]

  constructor(responses: BatchResult[]) {
    this.responses = responses
  }

  /**
   * get returns the answer of the request at index, typed by the method
   * that added it. An index the batch did not have throws a RangeError.
   */
  get<T = unknown>(index: BatchIndex<T>): BatchResult<T> {
    const r = this.responses[index]
    if (!r) throw new RangeError(`batch: no request ${index} (the batch had ${this.responses.length})`)
    return r as BatchResult<T>
  }
}

/** batchRefPattern matches a reference as the server reads it: `{{N.field}}`. */
const batchRefPattern = /\{\{(\d+)\.([A-Za-z_][A-Za-z0-9_]*)\}\}/g
const fieldPattern = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * batchRef returns `{{index.field}}`: in a later request of a batch (an id,
 * or a value of its data) it stands for that field of request index's
 * answer, such as the id of the record it created. `Batch.ref` is the same
 * with the index checked against the batch.
 */
export function batchRef(index: number, field: string): string {
  return `{{${index}.${field}}}`
}

/** A request of a batch before its collection key is resolved to an apiPath. */
interface BatchOp {
  method: 'POST' | 'PATCH' | 'DELETE'
  key: string
  /** What follows the collection's path: `/{id}`, `/{id}/move`, `/reorder` or `?ids=`. */
  sub: string
  body?: unknown
  headers?: Record<string, string>
  operation: Exclude<Mutation['operation'], 'reset'>
  /** The ids written, references included; a create's comes from its answer. */
  ids: string[]
}

/** The wire shape of one request of a batch (the OpenAPI document's KitBatchCall). */
interface BatchRequestWire {
  method: string
  url: string
  body?: unknown
  headers?: Record<string, string>
}

/** The wire shape of one answer of a batch (KitBatchAnswer). */
interface BatchResponseWire {
  status: number
  headers?: Record<string, string>
  body?: unknown
}

/**
 * Batch collects record writes of one team to run in one transaction on
 * the server (`POST {prefix}/teams/{team}/kit-batch`): every one of them
 * is written, or none is. Each method adds one request and returns its
 * index, for `ref`. Collections are named by registry key, as everywhere
 * in the client. Get one from `TeamClient.batch()`:
 *
 *     const b = kit.team('acme').batch()
 *     const cat = b.create('shopCategories', { title: 'Lamps' })
 *     const lamp = b.create('shopProducts', { title: 'Desk lamp', price: '19.90', categoryId: b.ref(cat, 'id') })
 *     const results = await b.run()
 *     results.get(lamp).body.categoryId === results.get(cat).body.id
 */
export class Batch {
  private readonly ops: BatchOp[] = []

  constructor(readonly team: TeamClient) {}

  /** length is the number of requests in the batch. */
  get length(): number {
    return this.ops.length
  }

  /**
   * ref returns `{{index.field}}` (batchRef): that field of the answer of
   * request index, which must already be in the batch (a TypeError for a
   * field name the server would not read as one, a RangeError otherwise).
   */
  ref(index: number, field: string): string {
    if (!Number.isInteger(index) || index < 0 || index >= this.ops.length) {
      throw new RangeError(`batch.ref: request ${index} is not in the batch yet (it has ${this.ops.length})`)
    }
    if (!fieldPattern.test(field)) throw new TypeError(`batch.ref: ${JSON.stringify(field)} is not a field name`)
    return batchRef(index, field)
  }

  /** create adds the creation of a record of collection key from data; it answers the record. */
  create<T extends RecordShape = KitRecord>(key: string, data: Partial<NoInfer<T>> | Record<string, unknown>): BatchIndex<T> {
    return this.add({ method: 'POST', key, sub: '', body: data, operation: 'create', ids: [] })
  }

  /**
   * update adds a partial update of record id (or a reference); with
   * `ifMatch`, it applies only if the record has not changed since (else
   * the batch fails with a 412). It answers the record.
   */
  update<T extends RecordShape = KitRecord>(
    key: string,
    id: string,
    data: Partial<NoInfer<T>> | Record<string, unknown>,
    opts: UpdateOptions = {},
  ): BatchIndex<T> {
    return this.add({ method: 'PATCH', key, sub: `/${segment(id)}`, body: data, headers: ifMatch(opts), operation: 'update', ids: [id] })
  }

  /** delete adds the deletion of record id; with `ifMatch`, only if it has not changed since. */
  delete(key: string, id: string, opts: UpdateOptions = {}): BatchIndex<undefined> {
    return this.add({ method: 'DELETE', key, sub: `/${segment(id)}`, headers: ifMatch(opts), operation: 'delete', ids: [id] })
  }

  /** deleteMany adds the deletion of records ids (`DELETE ?ids=a,b`), all of them or none. */
  deleteMany(key: string, ids: string[]): BatchIndex<undefined> {
    return this.add({ method: 'DELETE', key, sub: `?ids=${ids.map(segment).join(',')}`, operation: 'delete', ids: [...ids] })
  }

  /**
   * move adds a move of tree node id under a new parent at a position
   * (appended when order is omitted); with `ifMatch`, only if the node has
   * not changed since. It answers the node.
   */
  move<T extends RecordShape = KitRecord>(key: string, id: string, target: MoveTarget, opts: UpdateOptions = {}): BatchIndex<T> {
    return this.add({ method: 'PATCH', key, sub: `/${segment(id)}/move`, body: target, headers: ifMatch(opts), operation: 'move', ids: [id] })
  }

  /** reorder adds a reorder of one set of siblings (every id, or some `{id, order}`); it answers them in order. */
  reorder<T extends RecordShape = KitRecord>(key: string, input: ReorderInput): BatchIndex<{ items: T[] }> {
    const body = input.length > 0 && typeof input[0] === 'object' ? { updates: input } : { ids: input }
    const ids = (input as Array<string | { id: string }>).map((x) => (typeof x === 'string' ? x : x.id))
    return this.add({ method: 'PATCH', key, sub: '/reorder', body, operation: 'reorder', ids })
  }

  /**
   * run sends the batch and resolves with what each request answered. The
   * collection keys are resolved to their apiPaths from the registry first.
   * When a request fails, nothing is written and run rejects with the
   * KitError that request answered, its message prefixed with
   * `request N:` and its `data.index` N; a batch the server refuses as a
   * whole (no request, more than 100) rejects with a KitError without an
   * index.
   *
   * Once the batch has committed, the client drops the cached reads of
   * every collection it wrote (and of their references) and tells its
   * mutation listeners once per collection and operation, naming every id
   * written; the change stream's reports of these writes are not passed on
   * again.
   */
  async run(opts: { signal?: AbortSignal } = {}): Promise<BatchResults> {
    const client = this.team.client
    const ops = [...this.ops]
    const teamPath = `teams/${encodeURIComponent(this.team.team)}`
    const requests = await Promise.all(
      ops.map(async (op): Promise<BatchRequestWire> => {
        const cfg = await client.config(op.key)
        const req: BatchRequestWire = { method: op.method, url: `/${teamPath}/${cfg?.apiPath ?? op.key}${op.sub}` }
        if (op.body !== undefined) req.body = op.body
        if (op.headers) req.headers = op.headers
        return req
      }),
    )
    const res = await client.request<{ responses: BatchResponseWire[] }>('POST', `${teamPath}/kit-batch`, {
      body: { requests },
      headers: { 'X-Correlation-Id': client.ownWrite(ops.length) },
      signal: opts.signal,
    })
    const results = new BatchResults(
      res.responses.map((r) => {
        const headers = r.headers ?? {}
        return { status: r.status, headers, body: r.body, etag: headers.ETag ?? '' }
      }),
    )
    await this.notify(ops, results)
    return results
  }

  private add(op: BatchOp): number {
    this.ops.push(op)
    return this.ops.length - 1
  }

  /** notify reports the committed writes: one mutation per collection and operation, in the batch's order. */
  private async notify(ops: BatchOp[], results: BatchResults): Promise<void> {
    const groups = new Map<string, Omit<Mutation, 'invalidated'>>()
    ops.forEach((op, i) => {
      const group = `${op.key}\u0000${op.operation}`
      let m = groups.get(group)
      if (!m) {
        m = { operation: op.operation, collection: op.key, team: this.team.team, ids: [] }
        groups.set(group, m)
      }
      if (op.operation === 'create') {
        const id = (results.responses[i]?.body as { id?: unknown } | undefined)?.id
        if (typeof id === 'string') m.ids.push(id)
      } else {
        for (const id of op.ids) m.ids.push(resolveRefs(id, results))
      }
    })
    for (const m of groups.values()) await this.team.client.mutated(m)
  }
}

/** segment escapes an id for a URL, leaving a reference as it is for the server to replace. */
function segment(id: string): string {
  return /^\{\{\d+\.[A-Za-z_][A-Za-z0-9_]*\}\}$/.test(id) ? id : encodeURIComponent(id)
}

function ifMatch(opts: UpdateOptions): Record<string, string> | undefined {
  return opts.ifMatch !== undefined ? { 'If-Match': opts.ifMatch } : undefined
}

/** resolveRefs replaces the references in s with the text of the fields they name, as the server did. */
function resolveRefs(s: string, results: BatchResults): string {
  return s.replace(batchRefPattern, (ref, n: string, field: string) => {
    const v = (results.responses[Number(n)]?.body as Record<string, unknown> | undefined)?.[field]
    return v === undefined || v === null ? ref : String(v)
  })
}
