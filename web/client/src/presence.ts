import type { KitError } from './errors'
import { followEventStream, type EventStreamHost } from './stream'

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
export type PresenceHost = EventStreamHost

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
  return followEventStream({
    host,
    path: `teams/${encodeURIComponent(team)}/kit-presence`,
    query() {
      const query = new URLSearchParams({ collection: opts.collection })
      if (opts.item) query.set('item', opts.item)
      return query
    },
    onEvent(ev) {
      if (ev.event !== 'presence' || !ev.data) return false
      opts.onPresence?.(JSON.parse(ev.data) as PresenceEvent)
      return true
    },
    onError: opts.onError,
    onBroken: opts.onClose,
    // Closed while the tab is hidden or the page left: nobody is viewing.
    pauseWhenHidden: true,
    minBackoffMs: opts.minBackoffMs,
    maxBackoffMs: opts.maxBackoffMs,
    idleTimeoutMs: opts.idleTimeoutMs,
  })
}
