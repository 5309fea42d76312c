import type { ChangeEvent, ChangeSubscription, KitError } from '@collectionkit/client'
import { onScopeDispose, ref, shallowRef, toValue, watch, type MaybeRefOrGetter, type Ref, type ShallowRef } from 'vue'
import { useKit } from './context'

/** UseKitChangesOptions configure useKitChanges; every field is optional. */
export interface UseKitChangesOptions {
  /** Only these registry keys (a ref or getter is followed: the stream reopens on change). */
  collections?: MaybeRefOrGetter<string[] | undefined>
  /** Called for every change, after the affected queries were told to refresh. */
  onChange?: (change: ChangeEvent) => void
}

/** UseKitChangesReturn: the stream's state. */
export interface UseKitChangesReturn {
  /** Whether the stream is open and current. */
  connected: Ref<boolean>
  /** The last change received, or null. */
  lastChange: ShallowRef<ChangeEvent | null>
  /** The server's refusal (401, 403, 404, 400), or null; the stream then stays closed. */
  error: ShallowRef<KitError | null>
}

/**
 * useKitChanges keeps the current team's change stream open while the
 * calling scope lives (reopening it when the team changes). Every change
 * other writers make reaches the client's mutation listeners, so
 * useCollectionQuery and useCollectionItem of the affected collections (the
 * changed one and those it references) refetch, and the cache drops their
 * reads. Call it once, near the app's root.
 */
export function useKitChanges(options: UseKitChangesOptions = {}): UseKitChangesReturn {
  const ctx = useKit()
  const connected = ref(false)
  const lastChange = shallowRef<ChangeEvent | null>(null)
  const error = shallowRef<KitError | null>(null)
  let sub: ChangeSubscription | undefined

  function open(team: string | undefined, collections: string[] | undefined): void {
    sub?.close()
    sub = undefined
    connected.value = false
    error.value = null
    if (!team) return
    sub = ctx.client.team(team).subscribe({
      ...(collections?.length ? { collections } : {}),
      onOpen: () => (connected.value = true),
      onChange: (c) => {
        lastChange.value = c
        options.onChange?.(c)
      },
      onError: (e) => {
        connected.value = false
        error.value = e
      },
    })
  }

  watch(
    () => [ctx.team(), JSON.stringify(toValue(options.collections) ?? [])] as const,
    () => open(ctx.team(), toValue(options.collections)),
    { immediate: true },
  )
  onScopeDispose(() => {
    sub?.close()
    sub = undefined
    connected.value = false
  })
  return { connected, lastChange, error }
}
