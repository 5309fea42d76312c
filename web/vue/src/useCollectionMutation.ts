import { isKitError, type FileChanges, type KitError, type KitRecord, type RecordShape, type UpdateOptions } from '@collectionkit/client'
import { ref, shallowRef, toValue, type MaybeRefOrGetter, type Ref, type ShallowRef } from 'vue'
import { asKitError, teamOrError, useKit } from './context'

/** UseCollectionMutationReturn: the spec's `create`, `update`, `deleteItems`, with pending and error. */
export interface UseCollectionMutationReturn<T extends RecordShape> {
  /** Creates a record; resolves with it as stored. */
  create: (data: Partial<T> | Record<string, unknown>) => Promise<T>
  /** Updates the given fields; resolves with the stored record. */
  update: (id: string, data: Partial<T> | Record<string, unknown>, options?: UpdateOptions) => Promise<T>
  /** Creates a record with files, sent as multipart (see docs/files.md); resolves with it as stored. */
  createWithFiles: (changes: FileChanges) => Promise<T>
  /** Changes a record's files and values, sent as multipart; resolves with the stored record. */
  updateFiles: (id: string, changes: FileChanges, options?: UpdateOptions) => Promise<T>
  /**
   * Deletes records by id: one id with `DELETE /{id}`; several (at most 100)
   * with one `DELETE ?ids=a,b`, all or nothing: when one record cannot be
   * deleted, none is, and the KitError is the one its single delete gives.
   */
  deleteItems: (ids: string[]) => Promise<void>
  /** True while a write is under way. */
  pending: Ref<boolean>
  /** The last write's error, or null. */
  error: ShallowRef<KitError | null>
}

/**
 * useCollectionMutation writes to a collection (with files: createWithFiles,
 * updateFiles) of the current team (else
 * the route's team). Every write goes through the client, which invalidates
 * the collection's cached reads (and those of its references) and tells the
 * queries and items of this app to refresh. A failed write rejects with a
 * KitError and sets error.
 */
export function useCollectionMutation<T extends RecordShape = KitRecord>(
  collection: MaybeRefOrGetter<string>,
): UseCollectionMutationReturn<T> {
  const ctx = useKit()
  const pending = ref(false)
  const error = shallowRef<KitError | null>(null)

  async function write<R>(fn: (c: ReturnType<typeof target>) => Promise<R>): Promise<R> {
    pending.value = true
    error.value = null
    try {
      return await fn(target())
    } catch (err) {
      error.value = asKitError(err)
      throw error.value
    } finally {
      pending.value = false
    }
  }
  function target() {
    const team = teamOrError(ctx)
    if (typeof team !== 'string') throw team
    return ctx.client.team(team).collection<T>(toValue(collection))
  }

  return {
    create: (data) => write((c) => c.create(data)),
    update: (id, data, options) => write((c) => c.update(id, data, options)),
    createWithFiles: (changes) => write((c) => c.createWithFiles(changes)),
    updateFiles: (id, changes, options) => write((c) => c.updateFiles(id, changes, options)),
    deleteItems: (ids) => write((c) => c.delete(ids)),
    pending,
    error,
  }
}
