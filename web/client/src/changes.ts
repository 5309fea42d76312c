import { errorFromResponse, KitError } from './errors'
import { pageGate } from './lifecycle'

/**
 * ChangeEvent is one event of a team's change stream
 * (`GET {prefix}/teams/{team}/kit-changes`): a committed create, update,
 * delete, move or reorder. It carries no record data; refetch what you show.
 */
export interface ChangeEvent {
  /** The change's position; a reconnect resumes after the last one seen. */
  id: number
  operation: 'create' | 'update' | 'delete' | 'move' | 'reorder'
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
export interface StreamHost {
  url(path: string, query?: URLSearchParams): string
  headers(): Promise<Record<string, string>>
  fetchImpl: typeof fetch
  credentials: RequestCredentials | undefined
  changed(change: ChangeEvent, team: string): void
  reset(team: string): Promise<void>
}

interface RawEvent {
  event: string
  id: string
  data: string
}

/**
 * parseEvents splits SSE text into events; it returns the events and the
 * unfinished rest.
 */
export function parseEvents(text: string): { events: RawEvent[]; rest: string } {
  const events: RawEvent[] = []
  const blocks = text.split(/\r?\n\r?\n/)
  const rest = blocks.pop() ?? ''
  for (const block of blocks) {
    const ev: RawEvent = { event: '', id: '', data: '' }
    const data: string[] = []
    let hasID = false
    for (const line of block.split(/\r?\n/)) {
      if (line === '' || line.startsWith(':')) continue
      const i = line.indexOf(':')
      const field = i < 0 ? line : line.slice(0, i)
      let value = i < 0 ? '' : line.slice(i + 1)
      if (value.startsWith(' ')) value = value.slice(1)
      if (field === 'event') ev.event = value
      else if (field === 'id') {
        ev.id = value
        hasID = true
      } else if (field === 'data') data.push(value)
    }
    ev.data = data.join('\n')
    if (ev.event || ev.data || hasID) events.push(ev)
  }
  return { events, rest }
}

/**
 * openChangeStream follows a team's change stream with fetch (so a bearer
 * token works, which EventSource cannot send), reconnecting with
 * Last-Event-ID after a doubling backoff. In a browser the stream closes
 * while its page is left (pagehide: kept in the back/forward cache, say)
 * and resumes when it is shown again.
 */
export function openChangeStream(host: StreamHost, team: string, opts: SubscribeOptions = {}): ChangeSubscription {
  const min = opts.minBackoffMs ?? 500
  const max = Math.max(opts.maxBackoffMs ?? 30_000, min)
  const idleMs = opts.idleTimeoutMs ?? 60_000
  let last = opts.lastEventId ?? ''
  let open = false
  let closed = false
  let abort: AbortController | undefined
  let retryTimer: ReturnType<typeof setTimeout> | undefined

  async function once(): Promise<{ connected: boolean; refused?: KitError }> {
    abort = new AbortController()
    const ctl = abort
    let idle: ReturnType<typeof setTimeout> | undefined
    const touch = (): void => {
      if (idle) clearTimeout(idle)
      idle = setTimeout(() => ctl.abort(), idleMs)
    }
    let connected = false
    try {
      const query = new URLSearchParams()
      if (opts.collections?.length) query.set('collections', opts.collections.join(','))
      const headers: Record<string, string> = { ...(await host.headers()), Accept: 'text/event-stream' }
      if (last) headers['Last-Event-ID'] = last
      const init: RequestInit = { headers, signal: ctl.signal }
      if (host.credentials) init.credentials = host.credentials
      touch()
      const res = await host.fetchImpl(host.url(`teams/${encodeURIComponent(team)}/kit-changes`, query), init)
      if (!res.ok) {
        const err = await errorFromResponse(res)
        const refused = res.status >= 400 && res.status < 500 && res.status !== 429
        return { connected, ...(refused ? { refused: err } : {}) }
      }
      if (!res.body) return { connected }
      const reader = res.body.getReader()
      const decoder = new TextDecoder()
      let buf = ''
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        touch()
        const parsed = parseEvents(buf + decoder.decode(value, { stream: true }))
        buf = parsed.rest
        for (const ev of parsed.events) {
          if (ev.id) last = ev.id
          if (ev.event === 'reset') {
            await host.reset(team)
            opts.onReset?.()
          } else if (ev.event === 'ready') {
            connected = open = true
            opts.onOpen?.()
          } else if (ev.event === '' && ev.data) {
            const change = JSON.parse(ev.data) as ChangeEvent
            host.changed(change, team)
            opts.onChange?.(change)
          }
        }
      }
      return { connected }
    } catch {
      return { connected }
    } finally {
      open = false
      if (idle) clearTimeout(idle)
    }
  }

  // Closed while the page is left (back/forward cache included), then
  // resumed with Last-Event-ID.
  const gate = pageGate(false, () => abort?.abort())

  async function run(): Promise<void> {
    let wait = min
    while (!closed) {
      await gate.wait()
      if (closed) return
      const { connected, refused } = await once()
      if (closed) return
      if (refused) {
        closed = true
        gate.dispose()
        opts.onError?.(refused)
        return
      }
      if (gate.paused()) continue
      if (connected) wait = min
      await new Promise<void>((resolve) => {
        retryTimer = setTimeout(resolve, wait)
      })
      wait = Math.min(wait * 2, max)
    }
  }
  void run()

  return {
    get lastEventId() {
      return last
    },
    get open() {
      return open
    },
    close() {
      closed = true
      gate.dispose()
      if (retryTimer) clearTimeout(retryTimer)
      abort?.abort()
    },
  }
}
