// useKitBatch against the real kit serve.
import { KitClient, KitError, type BatchIndex, type KitRecord } from '@collectionkit/client'
import { describe, expect, inject, it } from 'vitest'
import { useCollectionQuery, useKitBatch } from '../src/index'
import { unique, withKit } from './harness'

/** annProducts is the acme products collection through a client of Ann's own. */
function annProducts() {
  const s = inject('kit')
  return new KitClient({ baseURL: s.baseURL, token: s.tokens.ann }).team('acme').collection('shopProducts')
}

/** refusal awaits p and returns the KitError it rejects with. */
async function refusal(p: Promise<unknown>): Promise<KitError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(KitError)
  return err as KitError
}

describe('useKitBatch', () => {
  it('is pending while the batch runs, then refreshes the queries of the collections it wrote', async () => {
    const tag = unique('batch')
    const v = withKit('ann', { team: 'acme' }, () => ({
      query: useCollectionQuery('shopProducts', { query: { search: tag } }),
      batch: useKitBatch(),
    }))
    try {
      await expect.poll(() => v.query.data.value).not.toBeNull()
      expect(v.query.items.value).toEqual([])
      expect(v.batch.pending.value).toBe(false)

      let cat: BatchIndex<KitRecord> = -1
      let lamp: BatchIndex<KitRecord> = -1
      const running = v.batch.run((b) => {
        cat = b.create('shopCategories', { title: `${tag} Lamps` })
        lamp = b.create('shopProducts', { title: `${tag} Desk lamp`, price: '19.90', categoryId: b.ref(cat, 'id') })
      })
      expect(v.batch.pending.value).toBe(true)
      const results = await running
      expect(v.batch.pending.value).toBe(false)
      expect(v.batch.error.value).toBeNull()
      expect(results.get(lamp).body).toMatchObject({ categoryId: results.get(cat).body.id })
      await expect.poll(() => v.query.items.value.map((p) => p.title)).toEqual([`${tag} Desk lamp`])
    } finally {
      v.dispose()
    }
  })

  it("sets error to the failing request's KitError with its index, writes nothing, and clears it on the next batch", async () => {
    const tag = unique('batch-fail')
    const v = withKit('ann', { team: 'acme' }, () => useKitBatch())
    try {
      const err = await refusal(
        v.run((b) => {
          b.create('shopProducts', { title: `${tag} first`, price: '1' })
          b.create('shopProducts', { price: '1' })
        }),
      )
      expect(v.error.value).toBe(err)
      expect(v.error.value?.status).toBe(400)
      expect(v.error.value?.data?.index).toBe(1)
      expect(v.error.value?.data?.fields).toEqual({ title: 'is required' })
      expect(v.pending.value).toBe(false)
      expect((await annProducts().list({ search: tag })).items).toEqual([])

      await v.run((b) => b.create('shopProducts', { title: `${tag} second`, price: '1' }))
      expect(v.error.value).toBeNull()
      expect((await annProducts().list({ search: tag })).items.map((p) => p.title)).toEqual([`${tag} second`])
    } finally {
      v.dispose()
    }
  })

  it('stays pending until every batch it started has ended', async () => {
    const tag = unique('batch-two')
    const v = withKit('ann', { team: 'acme' }, () => useKitBatch())
    try {
      let release!: () => void
      const gate = new Promise<void>((r) => (release = r))
      const slow = v.run(async (b) => {
        await gate
        b.create('shopProducts', { title: `${tag} slow`, price: '1' })
      })
      await v.run((b) => b.create('shopProducts', { title: `${tag} fast`, price: '1' }))
      expect(v.pending.value).toBe(true)
      release()
      await slow
      expect(v.pending.value).toBe(false)
    } finally {
      v.dispose()
    }
  })

  it('sets the spec 400 error without building or sending anything when there is no team', async () => {
    const v = withKit('ann', {}, () => useKitBatch())
    try {
      let built = false
      const err = await refusal(
        v.run(() => {
          built = true
        }),
      )
      expect(err.status).toBe(400)
      expect(v.error.value?.status).toBe(400)
      expect(built).toBe(false)
      expect(v.pending.value).toBe(false)
    } finally {
      v.dispose()
    }
  })
})
