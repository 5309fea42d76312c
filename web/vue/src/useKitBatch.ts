import type { Batch, BatchResults, KitError } from '@collectionkit/client'
import { computed, ref, shallowRef, type ComputedRef, type ShallowRef } from 'vue'
import { asKitError, teamOrError, useKit } from './context'

/** UseKitBatchReturn runs batches of the current team, with pending and error. */
export interface UseKitBatchReturn {
  /**
   * Runs a batch of the current team (else the route's team): build adds
   * its writes (it may be async, to read ETags first), then the batch is
   * sent, all or nothing. Resolves with what each write answered; rejects
   * with the KitError of the write that failed (its `data.index`), having
   * written nothing.
   */
  run: (build: (batch: Batch) => unknown) => Promise<BatchResults>
  /** True while a batch is under way. */
  pending: ComputedRef<boolean>
  /** The last batch's error, or null. */
  error: ShallowRef<KitError | null>
}

/**
 * useKitBatch runs several writes of the current team in one transaction
 * (`POST .../kit-batch`): every one of them is written, or none is. Like
 * useCollectionMutation's writes, a batch goes through the client, which
 * once it has committed drops the cached reads of the collections it wrote
 * (and of their references) and tells the queries and items of this app to
 * refresh. A failed batch rejects with a KitError and sets error.
 *
 *     const { run, pending, error } = useKitBatch()
 *     await run((b) => {
 *       const cat = b.create('shopCategories', { title: 'Lamps' })
 *       b.create('shopProducts', { title: 'Desk lamp', price: '19.90', categoryId: b.ref(cat, 'id') })
 *     })
 */
export function useKitBatch(): UseKitBatchReturn {
  const ctx = useKit()
  const running = ref(0)
  const error = shallowRef<KitError | null>(null)

  async function run(build: (batch: Batch) => unknown): Promise<BatchResults> {
    running.value++
    error.value = null
    try {
      const team = teamOrError(ctx)
      if (typeof team !== 'string') throw team
      const batch = ctx.client.team(team).batch()
      await build(batch)
      return await batch.run()
    } catch (err) {
      error.value = asKitError(err)
      throw error.value
    } finally {
      running.value--
    }
  }

  return { run, pending: computed(() => running.value > 0), error }
}
