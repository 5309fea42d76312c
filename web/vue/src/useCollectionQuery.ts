import type { KitError, KitRecord, ListQuery, ListResponse, RecordShape } from '@collectionkit/client'
import {
  computed,
  onScopeDispose,
  ref,
  shallowRef,
  toValue,
  watch as watchSource,
  type ComputedRef,
  type MaybeRefOrGetter,
  type Ref,
  type ShallowRef,
} from 'vue'
import { asKitError, teamOrError, useKit } from './context'

/** UseCollectionQueryOptions: the spec's `{query, watch}`; Q is the query type (a generated `ProductQuery`, say). */
export interface UseCollectionQueryOptions<Q extends object = ListQuery> {
  /** The list query (page, pageSize, search, sort, filter...): a plain object, ref, reactive object or getter. */
  query?: MaybeRefOrGetter<Q | undefined>
  /** Refetch when the query, the collection or the team changes. Default true. */
  watch?: boolean
}

/** UseCollectionQueryReturn: the spec's `{items, data, refresh, pending, error}`. */
export interface UseCollectionQueryReturn<T extends RecordShape> {
  /** The records of the current page (empty until loaded). */
  items: ComputedRef<T[]>
  /** The whole answer, `{items, pagination}`, or null until loaded. */
  data: ShallowRef<ListResponse<T> | null>
  /** Fetches again, past the cache. */
  refresh: () => Promise<void>
  pending: Ref<boolean>
  error: ShallowRef<KitError | null>
}

/**
 * useCollectionQuery lists a collection of the current team (else the
 * route's team). It fetches at once, again when the query changes (unless
 * `watch` is false), and after every write through the client that
 * invalidates this collection (its own writes, and writes of collections
 * that reference it).
 */
export function useCollectionQuery<T extends RecordShape = KitRecord, Q extends object = ListQuery>(
  collection: MaybeRefOrGetter<string>,
  options: UseCollectionQueryOptions<Q> = {},
): UseCollectionQueryReturn<T> {
  const ctx = useKit()
  const data = shallowRef<ListResponse<T> | null>(null)
  const pending = ref(false)
  const error = shallowRef<KitError | null>(null)
  let latest = 0

  async function load(force: boolean): Promise<void> {
    const run = ++latest
    const team = teamOrError(ctx)
    if (typeof team !== 'string') {
      error.value = team
      return
    }
    pending.value = true
    try {
      const res = await ctx.client
        .team(team)
        .collection<T, Q>(toValue(collection))
        .list({ ...toValue(options.query) } as Q, { force })
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

  if (options.watch !== false) {
    watchSource(
      // One string, so that a new route with the same team and query
      // (a query string the page rewrote) fetches nothing.
      () => JSON.stringify([toValue(collection), ctx.team(), toValue(options.query) ?? {}]),
      () => void load(false),
    )
  }
  const stop = ctx.client.onMutation((m) => {
    // Any team: the writer may name the team by slug and this query by id.
    if (m.invalidated.includes(toValue(collection))) void load(true)
  })
  onScopeDispose(stop)
  void load(false)

  return {
    items: computed(() => data.value?.items ?? []),
    data,
    refresh: () => load(true),
    pending,
    error,
  }
}
