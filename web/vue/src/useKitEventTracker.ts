import type { EventHealth, KitEvent, TrackOptions } from '@collectionkit/client'
import { readonly, type DeepReadonly, type ShallowRef } from 'vue'
import { useKit } from './context'

/** Tracking options; teamId defaults to the current team (else the route's team). */
export type KitTrackOptions = Omit<TrackOptions, 'teamId'> & { teamId?: string }

/**
 * useKitEventTracker returns the app's event tracker: `track` (awaitable;
 * by the error mode it rejects, or resolves with no events) and
 * `trackInBackground` (fire and forget; never rejects), and the health
 * record (`total`, `failed`, `lastError`, `lastErrorTime`) as a ref updated
 * after every attempt.
 */
export function useKitEventTracker(): {
  track: (options: KitTrackOptions) => Promise<KitEvent[]>
  trackInBackground: (options: KitTrackOptions) => void
  health: DeepReadonly<ShallowRef<EventHealth>>
} {
  const ctx = useKit()
  const withTeam = (o: KitTrackOptions): TrackOptions => ({ ...o, teamId: o.teamId ?? ctx.team() ?? '' })
  const track = async (o: KitTrackOptions): Promise<KitEvent[]> => {
    try {
      return await ctx.tracker.track(withTeam(o))
    } finally {
      ctx.health.value = ctx.tracker.health()
    }
  }
  return {
    track,
    trackInBackground: (o) => {
      track(o).catch(() => {
        // Counted and logged by the tracker; nobody awaits a background attempt.
      })
    },
    health: readonly(ctx.health),
  }
}
