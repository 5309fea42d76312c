import type { KitError, KitRecord, RecordShape } from '@collectionkit/client'
import { onScopeDispose, ref, shallowRef, toValue, watch, type MaybeRefOrGetter, type Ref, type ShallowRef } from 'vue'
import { asKitError, teamOrError, useKit } from './context'

/** UseCollectionItemReturn: the spec's `{item, pending, error, refresh}`. */
export interface UseCollectionItemReturn<T extends RecordShape> {
  /** The record, or null until loaded, when the id is empty, or after it was deleted. */
  item: ShallowRef<T | null>
  pending: Ref<boolean>
  error: ShallowRef<KitError | null>
  /** Fetches again, past the cache. */
  refresh: () => Promise<void>
}

/**
 * useCollectionItem reads one record. `id` is a string, a ref or a getter;
 * a new id fetches again. The record is read by the collection's fetch
 * strategy from the current team (else the route's `team` parameter), or
 * from `/api/super-admin/<collection>/<id>` on a super-admin route. It is
 * fetched again after writes through the client that invalidate the
 * collection, and set to null when the client deletes it.
 */
export function useCollectionItem<T extends RecordShape = KitRecord>(
  collection: MaybeRefOrGetter<string>,
  id: MaybeRefOrGetter<string | null | undefined>,
): UseCollectionItemReturn<T> {
  const ctx = useKit()
  const item = shallowRef(null) as ShallowRef<T | null>
  const pending = ref(false)
  const error = shallowRef<KitError | null>(null)
  let latest = 0

  async function load(force: boolean): Promise<void> {
    const run = ++latest
    const key = toValue(collection)
    const want = toValue(id)
    if (!want) {
      item.value = null
      error.value = null
      pending.value = false
      return
    }
    let read: Promise<T>
    if (ctx.superAdmin()) {
      read = ctx.client.superAdmin().item<T>(key, want, { force })
    } else {
      const team = teamOrError(ctx)
      if (typeof team !== 'string') {
        error.value = team
        return
      }
      read = ctx.client.team(team).collection<T>(key).item(want, { force })
    }
    pending.value = true
    try {
      const rec = await read
      if (run === latest) {
        item.value = rec
        error.value = null
      }
    } catch (err) {
      if (run === latest) {
        item.value = null
        error.value = asKitError(err)
      }
    } finally {
      if (run === latest) pending.value = false
    }
  }

  watch(
    () => [toValue(collection), toValue(id), ctx.team(), ctx.superAdmin()],
    () => void load(false),
  )
  const stop = ctx.client.onMutation((m) => {
    if (!m.invalidated.includes(toValue(collection))) return
    const current = toValue(id)
    if (m.operation === 'delete' && m.collection === toValue(collection) && current && m.ids.includes(current)) {
      latest++
      item.value = null
      pending.value = false
      return
    }
    void load(true)
  })
  onScopeDispose(stop)
  void load(false)

  return { item, pending, error, refresh: () => load(true) }
}
