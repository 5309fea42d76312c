import type { KitError, PresenceViewer } from '@collectionkit/client'
import { computed, onScopeDispose, shallowRef, toValue, watch, type ComputedRef, type MaybeRefOrGetter } from 'vue'
import { useKit } from './context'
import type { PresenceState } from './presence'

/** UseKitPresenceReturn: who else has the collection open. */
export interface UseKitPresenceReturn {
  /** The other users of the team with the collection open, oldest first (never the current user). */
  viewers: ComputedRef<PresenceViewer[]>
  /** The viewers who have the record id open. */
  viewersOf(id: string | null | undefined): PresenceViewer[]
  /** Whether the presence stream is open. */
  connected: ComputedRef<boolean>
  /** The server's refusal (400, 401, 403, 404), or null. */
  error: ComputedRef<KitError | null>
}

/**
 * useKitPresence makes the current user present at a collection of the
 * current team (and at a record of it: `item`, else the record of the
 * open update or view form of that collection) while the calling scope
 * lives, and returns who else is. Both arguments may be refs or getters;
 * an empty collection or no team shows nobody. Components of one app that
 * show the same collection share one stream (the context's KitPresence).
 */
export function useKitPresence(collection: MaybeRefOrGetter<string | null | undefined>, item?: MaybeRefOrGetter<string | null | undefined>): UseKitPresenceReturn {
  const ctx = useKit()
  const state = shallowRef<PresenceState | null>(null)
  let joined: ReturnType<typeof ctx.presence.join> | null = null
  watch(
    () => [ctx.team(), toValue(collection)] as const,
    ([team, key]) => {
      joined?.leave()
      joined = team && key ? ctx.presence.join(team, key, toValue(item) ?? null) : null
      state.value = joined?.state ?? null
    },
    { immediate: true },
  )
  watch(
    () => toValue(item) ?? null,
    (id) => joined?.setItem(id),
  )
  onScopeDispose(() => {
    joined?.leave()
    joined = null
  })
  const viewers = computed(() => state.value?.viewers.value ?? [])
  return {
    viewers,
    viewersOf: (id) => (id ? viewers.value.filter((v) => v.items.includes(id)) : []),
    connected: computed(() => state.value?.connected.value ?? false),
    error: computed(() => state.value?.error.value ?? null),
  }
}
