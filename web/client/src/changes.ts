import type { KitError } from './errors'
import { followEventStream, type EventStreamHost } from './stream'

/**
 * ChangeEvent is one event of a team's change stream
 * (`GET {prefix}/teams/{team}/kit-changes`): a committed create, update,
 * delete, move or reorder. It carries no record data; refetch what you show.
 */
export interface ChangeEvent {
  /** The change's position; a reconnect resumes after the last one seen. */
  id: number
  operation: 'create' | 'update' | 'delete' | 'move' | 'reorder' | 'restore' | 'purge'
  /** The registry key of the changed collection. */
  collection: string
  /** The changed record, when the change concerns one record and is not a reorder. */
  itemId?: string
  /** The reordered records in their new order (reorder), or the records a bulk delete of several removed. */
  itemIds?: string[]
  correlationId: string
  /** Unix milliseconds. */
  timestamp: number
  /** Cache keys made stale, `collection:<key>:*`: the collection and those its references name. */
  invalidate: string[]
}

/** SubscribeOptions configure `TeamClient.subscribe`; every field is optional. */
export interface SubscribeOptions {
  /** Only these registry keys. */
  collections?: string[]
  /** Resume after this position instead of starting at the stream's end. */
  lastEventId?: string
  /** Called for every change, after the client's cache dropped its keys and its mutation listeners ran. */
  onChange?: (change: ChangeEvent) => void
  /** Called when the server could not resume (changes in between are gone): the cache was cleared. */
  onReset?: () => void
  /** Called each time the stream is open and current. */
  onOpen?: () => void
  /** Called once when the server refuses the stream (400, 401, 403, 404); the subscription stops. */
  onError?: (error: KitError) => void
  /** First wait before reconnecting, doubled up to maxBackoffMs. Default 500. */
  minBackoffMs?: number
  /** Default 30000. */
  maxBackoffMs?: number
  /** Reconnect when nothing (not even a heartbeat) came for this long. Default 60000. */
  idleTimeoutMs?: number
}

/** ChangeSubscription is an open (or reconnecting) change stream. */
export interface ChangeSubscription {
  /** The last position seen, sent as Last-Event-ID on reconnect. */
  readonly lastEventId: string
  /** Whether the stream is open and current right now. */
  readonly open: boolean
  /** Stops the stream for good. */
  close(): void
}

/** The hooks the stream needs from KitClient (kept small so this file has no import cycle). */
export interface StreamHost extends EventStreamHost {
  changed(change: ChangeEvent, team: string): void
  reset(team: string): Promise<void>
}

/**
 * openChangeStream follows a team's change stream with fetch (so a bearer
 * token works, which EventSource cannot send), reconnecting with
 * Last-Event-ID after a doubling backoff. In a browser the stream closes
 * while its page is left (pagehide: kept in the back/forward cache, say)
 * and resumes when it is shown again.
 */
export function openChangeStream(host: StreamHost, team: string, opts: SubscribeOptions = {}): ChangeSubscription {
  let last = opts.lastEventId ?? ''
  const stream = followEventStream({
    host,
    path: `teams/${encodeURIComponent(team)}/kit-changes`,
    query() {
      const query = new URLSearchParams()
      if (opts.collections?.length) query.set('collections', opts.collections.join(','))
      return query
    },
    headers: (): Record<string, string> => (last ? { 'Last-Event-ID': last } : {}),
    async onEvent(ev) {
      if (ev.id) last = ev.id
      if (ev.event === 'reset') {
        await host.reset(team)
        opts.onReset?.()
      } else if (ev.event === 'ready') {
        opts.onOpen?.()
        return true
      } else if (ev.event === '' && ev.data) {
        const change = JSON.parse(ev.data) as ChangeEvent
        host.changed(change, team)
        opts.onChange?.(change)
      }
      return false
    },
    onError: opts.onError,
    // Closed while the page is left (back/forward cache included), then
    // resumed with Last-Event-ID.
    pauseWhenHidden: false,
    minBackoffMs: opts.minBackoffMs,
    maxBackoffMs: opts.maxBackoffMs,
    idleTimeoutMs: opts.idleTimeoutMs,
  })
  return {
    get lastEventId() {
      return last
    },
    get open() {
      return stream.open
    },
    close: () => stream.close(),
  }
}
