import type { KitClient } from './client'
import type { KitEvent } from './types'

/** The key the health record is kept under in a HealthStorage. */
export const HEALTH_KEY = 'kit-events-health'

/** EventHealth is the spec's event tracking health record. */
export interface EventHealth {
  /** Tracking attempts. */
  total: number
  /** Failed attempts. */
  failed: number
  lastError: string | null
  lastErrorTime: Date | null
}

/**
 * HealthStorage keeps the health record. `localStorage` and
 * `sessionStorage` fit (they have getItem and setItem); the default is
 * MemoryStorage.
 */
export interface HealthStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

/** MemoryStorage is a HealthStorage held in memory, one per instance. */
export class MemoryStorage implements HealthStorage {
  private readonly values = new Map<string, string>()
  getItem(key: string): string | null {
    return this.values.get(key) ?? null
  }
  setItem(key: string, value: string): void {
    this.values.set(key, value)
  }
}

/** The spec's error modes: `silent` logs; `toast` logs and calls onToast; `throw` rejects. */
export type ErrorMode = 'silent' | 'toast' | 'throw'

/** EventTrackerOptions mirror the spec's tracking config; every field is optional. */
export interface EventTrackerOptions {
  /** false turns tracking off: track resolves with no events and sends nothing. Default true. */
  enabled?: boolean
  errorHandling?: {
    /** Default `toast`. */
    mode?: ErrorMode
    /** Log failures with console.error. Default true. */
    logToConsole?: boolean
  }
  /**
   * Called with a message and the error when a tracking attempt fails in
   * `toast` mode: show a toast (the spec shows it in development only, so
   * pass it only there).
   */
  onToast?: (message: string, error: unknown) => void
  /** Where the health record is kept. Default: a MemoryStorage of this tracker. */
  storage?: HealthStorage
}

/** TrackOptions describe one event to record through `POST /teams/{team}/kit-collection-events`. */
export interface TrackOptions {
  /** The team (id or slug). */
  teamId: string
  operation: 'create' | 'update' | 'delete' | 'move' | 'reorder'
  /** The collection's registry key. */
  collection: string
  itemId?: string
  itemIds?: string[]
  data?: Record<string, unknown>
  updates?: Record<string, unknown>
  result?: unknown
  beforeData?: Record<string, unknown>
}

/**
 * EventTracker records events by hand and keeps the health record: each
 * attempt adds to `total`, each failure to `failed` and sets `lastError`
 * and `lastErrorTime`.
 */
export class EventTracker {
  private readonly client: KitClient
  private readonly options: EventTrackerOptions
  private readonly storage: HealthStorage

  constructor(client: KitClient, options: EventTrackerOptions = {}) {
    this.client = client
    this.options = options
    this.storage = options.storage ?? new MemoryStorage()
  }

  /** health reads the health record (zeros when nothing was tracked yet). */
  health(): EventHealth {
    const raw = this.storage.getItem(HEALTH_KEY)
    if (!raw) return { total: 0, failed: 0, lastError: null, lastErrorTime: null }
    try {
      const h = JSON.parse(raw) as { total?: number; failed?: number; lastError?: string | null; lastErrorTime?: string | null }
      return {
        total: h.total ?? 0,
        failed: h.failed ?? 0,
        lastError: h.lastError ?? null,
        lastErrorTime: h.lastErrorTime ? new Date(h.lastErrorTime) : null,
      }
    } catch {
      return { total: 0, failed: 0, lastError: null, lastErrorTime: null }
    }
  }

  /** resetHealth sets the health record back to zeros. */
  resetHealth(): void {
    this.write({ total: 0, failed: 0, lastError: null, lastErrorTime: null })
  }

  private write(h: EventHealth): void {
    this.storage.setItem(
      HEALTH_KEY,
      JSON.stringify({ ...h, lastErrorTime: h.lastErrorTime ? h.lastErrorTime.toISOString() : null }),
    )
  }

  /**
   * track records one event and resolves with the events the server wrote.
   * On failure it counts the failure, then by mode: `throw` rejects with
   * the error; `silent` logs; `toast` logs and calls onToast; both resolve
   * with an empty array.
   */
  async track(options: TrackOptions): Promise<KitEvent[]> {
    if (this.options.enabled === false) return []
    const before = this.health()
    this.write({ ...before, total: before.total + 1 })
    try {
      const { teamId, ...body } = options
      const res = await this.client.request<{ items?: KitEvent[] } | undefined>(
        'POST',
        `teams/${encodeURIComponent(teamId)}/kit-collection-events`,
        { body },
      )
      return res?.items ?? []
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      const h = this.health()
      this.write({ ...h, failed: h.failed + 1, lastError: message, lastErrorTime: new Date() })
      const mode = this.options.errorHandling?.mode ?? 'toast'
      if (this.options.errorHandling?.logToConsole !== false) {
        console.error(`[kit-events] tracking ${options.operation} of ${options.collection} failed: ${message}`)
      }
      if (mode === 'throw') throw err
      if (mode === 'toast') this.options.onToast?.(`Event tracking failed: ${message}`, err)
      return []
    }
  }

  /**
   * trackInBackground records an event without waiting: it never rejects
   * (a failure is counted and handled by mode, and in `throw` mode logged
   * instead of thrown, since nobody awaits it).
   */
  trackInBackground(options: TrackOptions): void {
    this.track(options).catch((err: unknown) => {
      if (this.options.errorHandling?.logToConsole !== false) {
        console.error('[kit-events] background tracking failed', err)
      }
    })
  }
}
