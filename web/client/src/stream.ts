import { errorFromResponse, type KitError } from './errors'
import { pageGate } from './lifecycle'

/** The hooks a stream needs from KitClient (kept small so this file has no import cycle). */
export interface EventStreamHost {
  url(path: string, query?: URLSearchParams): string
  headers(): Promise<Record<string, string>>
  fetchImpl: typeof fetch
  credentials: RequestCredentials | undefined
}

/** RawEvent is one Server-Sent Event as parseEvents reads it. */
export interface RawEvent {
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

/** EventStreamSpec says what followEventStream follows and how. */
export interface EventStreamSpec {
  host: EventStreamHost
  /** The path under the client's base URL, such as `teams/acme/kit-changes`. */
  path: string
  /** The query of each attempt. */
  query(): URLSearchParams
  /** Headers of each attempt besides the client's and Accept (Last-Event-ID, say). */
  headers?(): Record<string, string>
  /** Handles one event; true marks the stream open (connected). */
  onEvent(ev: RawEvent): boolean | Promise<boolean>
  /** Called once when the server refuses the stream (a 4xx other than 429); the stream stops. */
  onError?(error: KitError): void
  /** Called when a stream that was open broke (it reconnects). */
  onBroken?(): void
  /** Pause while the tab is hidden too, not only while the page is left (see pageGate). */
  pauseWhenHidden: boolean
  minBackoffMs?: number
  maxBackoffMs?: number
  idleTimeoutMs?: number
}

/** EventStream is an open (or reconnecting) stream of followEventStream. */
export interface EventStream {
  /** Whether the stream is open right now. */
  readonly open: boolean
  /** Stops the stream for good. */
  close(): void
}

/**
 * followEventStream keeps `GET path` open with fetch (so a bearer token
 * works, which EventSource cannot send): each attempt reads the events
 * until the stream ends, breaks or stays silent (not even a heartbeat)
 * for idleTimeoutMs, then the next attempt follows after a backoff that
 * doubles from minBackoffMs (500) up to maxBackoffMs (30000) and starts
 * again once an attempt connected. A 429 waits the same way; another 4xx
 * stops the stream (onError). In a browser the stream closes while its
 * page is away (see pageGate) and opens again when it shows.
 */
export function followEventStream(spec: EventStreamSpec): EventStream {
  const { host } = spec
  const min = spec.minBackoffMs ?? 500
  const max = Math.max(spec.maxBackoffMs ?? 30_000, min)
  const idleMs = spec.idleTimeoutMs ?? 60_000
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
      const headers: Record<string, string> = { ...(await host.headers()), Accept: 'text/event-stream', ...spec.headers?.() }
      const init: RequestInit = { headers, signal: ctl.signal }
      if (host.credentials) init.credentials = host.credentials
      touch()
      const res = await host.fetchImpl(host.url(spec.path, spec.query()), init)
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
          if (closed) continue
          if (await spec.onEvent(ev)) connected = open = true
        }
      }
      return { connected }
    } catch {
      return { connected }
    } finally {
      if (open && !closed) spec.onBroken?.()
      open = false
      if (idle) clearTimeout(idle)
    }
  }

  const gate = pageGate(spec.pauseWhenHidden, () => abort?.abort())

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
        spec.onError?.(refused)
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
