import { parseEvents } from './changes'
import { errorFromResponse, type KitError } from './errors'
import { pageGate } from './lifecycle'

/** PresenceViewer is another user of the team who has the collection open. */
export interface PresenceViewer {
  userId: string
  /** The user's display name. */
  name: string
  /** The ids of the collection's records the user has open; empty when only the collection is. */
  items: string[]
  /** When the user's oldest open view of the collection began, Unix milliseconds. */
  since: number
}

/** PresenceEvent is the data of a presence stream's `presence` event. */
export interface PresenceEvent {
  /** The collection's registry key. */
  collection: string
  /** The other users of the team with the collection open, oldest first; never the caller. */
  viewers: PresenceViewer[]
}

/** PresenceOptions configure `TeamClient.presence`. */
export interface PresenceOptions {
  /** The collection the caller has open (registry key or apiPath). */
  collection: string
  /** The record of it the caller has open, if any. */
  item?: string | null
  /** Called with every presence event: when the stream opens and whenever the others change. */
  onPresence?: (event: PresenceEvent) => void
  /** Called when the server refuses the stream (400, 401, 403, 404); the subscription stops. */
  onError?: (error: KitError) => void
  /** Called when the stream broke (it reconnects): the viewers last reported are stale until it does. */
  onClose?: () => void
  /** First wait before reconnecting, doubled up to maxBackoffMs. Default 500. */
  minBackoffMs?: number
  /** Default 30000. */
  maxBackoffMs?: number
  /** Reconnect when nothing (not even a heartbeat) came for this long. Default 60000. */
  idleTimeoutMs?: number
}

/** PresenceSubscription is an open (or reconnecting) presence stream. */
export interface PresenceSubscription {
  /** Whether the stream is open right now. */
  readonly open: boolean
  /** Stops the stream: the caller is no longer present. */
  close(): void
}

/** The hooks the presence stream needs from KitClient. */
export interface PresenceHost {
  url(path: string, query?: URLSearchParams): string
  headers(): Promise<Record<string, string>>
  fetchImpl: typeof fetch
  credentials: RequestCredentials | undefined
}

/**
 * openPresenceStream keeps `GET teams/{team}/kit-presence` open (with
 * fetch, so a bearer token works): while it is open the caller is present
 * at the collection (and record), and every `presence` event reports the
 * others. A broken stream reconnects after a doubling backoff; a 429 (too
 * many streams) waits the same way; other 4xx answers stop it. In a
 * browser the stream closes while its tab is hidden or its page left (the
 * user is not viewing then) and opens again when it shows.
 */
export function openPresenceStream(host: PresenceHost, team: string, opts: PresenceOptions): PresenceSubscription {
  const min = opts.minBackoffMs ?? 500
  const max = Math.max(opts.maxBackoffMs ?? 30_000, min)
  const idleMs = opts.idleTimeoutMs ?? 60_000
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
      const query = new URLSearchParams({ collection: opts.collection })
      if (opts.item) query.set('item', opts.item)
      const headers: Record<string, string> = { ...(await host.headers()), Accept: 'text/event-stream' }
      const init: RequestInit = { headers, signal: ctl.signal }
      if (host.credentials) init.credentials = host.credentials
      touch()
      const res = await host.fetchImpl(host.url(`teams/${encodeURIComponent(team)}/kit-presence`, query), init)
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
          if (ev.event !== 'presence' || !ev.data || closed) continue
          connected = open = true
          opts.onPresence?.(JSON.parse(ev.data) as PresenceEvent)
        }
      }
      return { connected }
    } catch {
      return { connected }
    } finally {
      if (open && !closed) opts.onClose?.()
      open = false
      if (idle) clearTimeout(idle)
    }
  }

  // Closed while the tab is hidden or the page left: nobody is viewing.
  const gate = pageGate(true, () => abort?.abort())

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
