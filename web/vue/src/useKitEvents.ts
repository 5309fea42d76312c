import type { EventListQuery, KitError, KitEvent, ListResponse } from '@collectionkit/client'
import { ref, shallowRef, toValue, watch, type MaybeRefOrGetter, type Ref, type ShallowRef } from 'vue'
import { asKitError, useKit } from './context'

/** UseKitEventsOptions: every field may be a value, a ref or a getter. */
export interface UseKitEventsOptions {
  /** The team; default the current team (else the route's team). */
  teamId?: MaybeRefOrGetter<string | undefined>
  /** Add `user: {id, name, image}` to each event. Default false. */
  enrichUserData?: MaybeRefOrGetter<boolean | undefined>
  /** collectionName, operation, userId, itemId, dateFrom, dateTo. */
  filters?: MaybeRefOrGetter<Omit<EventListQuery, 'page' | 'pageSize' | 'enrichUserData'> | undefined>
  /** Default page 1, pageSize 50. */
  pagination?: MaybeRefOrGetter<{ page?: number; pageSize?: number } | undefined>
}

/**
 * useKitEvents lists a team's tracked events, newest first, and fetches
 * again when an option changes. Returns `{data, pending, error, refresh}`.
 */
export function useKitEvents(options: UseKitEventsOptions = {}): {
  data: ShallowRef<ListResponse<KitEvent> | null>
  pending: Ref<boolean>
  error: ShallowRef<KitError | null>
  refresh: () => Promise<void>
} {
  const ctx = useKit()
  const data = shallowRef<ListResponse<KitEvent> | null>(null)
  const pending = ref(false)
  const error = shallowRef<KitError | null>(null)
  let latest = 0

  const query = (): EventListQuery => {
    const p = toValue(options.pagination)
    const q: EventListQuery = { ...toValue(options.filters), page: p?.page ?? 1, pageSize: p?.pageSize ?? 50 }
    if (toValue(options.enrichUserData)) q.enrichUserData = true
    return q
  }
  const team = () => toValue(options.teamId) ?? ctx.team()

  async function load(): Promise<void> {
    const run = ++latest
    const t = team()
    if (!t) {
      error.value = asKitError(new Error('team id missing: no teamId, current team or team route parameter'))
      return
    }
    pending.value = true
    try {
      const res = await ctx.client.team(t).events(query())
      if (run === latest) {
        data.value = res
        error.value = null
      }
    } catch (err) {
      if (run === latest) error.value = asKitError(err)
    } finally {
      if (run === latest) pending.value = false
    }
  }

  watch(() => [team(), JSON.stringify(query())], () => void load())
  void load()
  return { data, pending, error, refresh: load }
}
