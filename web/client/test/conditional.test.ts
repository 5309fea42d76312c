import { describe, expect, it } from 'vitest'
import { KitError, type KitRecord } from '../src/index'
import { clientAs, unique } from './helpers'

/** refusal awaits p and returns the KitError it rejects with. */
async function refusal(p: Promise<unknown>): Promise<KitError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(KitError)
  return err as KitError
}

// shopProducts is fetched with GET /{id} (restful), shopCategories with
// ?ids=<id> (query): both carry the record's ETag.
describe.each(['shopProducts', 'shopCategories'])('conditional writes on %s', (key) => {
  const data = (title: string): Record<string, unknown> => (key === 'shopProducts' ? { title, price: '5' } : { title })

  it('answers the same ETag from create, a read, and changes it with an update', async () => {
    const col = clientAs('ann').team('acme').collection(key)
    const created = await col.createWithETag(data(unique('etag')))
    expect(created.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/)
    const read = await col.itemWithETag(created.item.id)
    expect(read.etag).toBe(created.etag)
    expect(read.item).toEqual(created.item)
    const updated = await col.updateWithETag(created.item.id, data(unique('renamed')), { ifMatch: read.etag })
    expect(updated.etag).not.toBe(read.etag)
    expect((await col.itemWithETag(created.item.id)).etag).toBe(updated.etag)
  })

  it('refuses the second of two edits from the same ETag with a 412, and keeps the first', async () => {
    const ann = clientAs('ann').team('acme').collection(key)
    const bea = clientAs('bea', { cache: true }).team('acme').collection(key)
    const { item, etag } = await bea.createWithETag(data(unique('both'))) // bea's: both may edit it
    await bea.item(item.id) // cached: itemWithETag must not answer from it
    const first = await ann.updateWithETag(item.id, data("ann's edit"), { ifMatch: etag })
    const err = await refusal(bea.update(item.id, data("bea's edit"), { ifMatch: etag }))
    expect(err.status).toBe(412)
    expect(err.statusText).toBe('Precondition Failed')
    expect(err.etag).toBe(first.etag)
    expect((err.data?.current as KitRecord).id).toBe(item.id)
    const now = await bea.itemWithETag(item.id)
    expect(now.etag).toBe(first.etag)
    expect(JSON.stringify(now.item)).toContain("ann's edit")
    // A retry with the 412's ETag, once the caller has seen the current record, goes through.
    const retried = await bea.updateWithETag(item.id, data("bea's edit"), { ifMatch: err.etag! })
    expect(JSON.stringify(retried.item)).toContain("bea's edit")
  })

  it('deletes with ifMatch only the version read', async () => {
    const col = clientAs('ann').team('acme').collection(key)
    const { item, etag } = await col.createWithETag(data(unique('del')))
    const current = await col.updateWithETag(item.id, data(unique('changed')))
    const err = await refusal(col.delete(item.id, { ifMatch: etag }))
    expect(err.status).toBe(412)
    expect(err.etag).toBe(current.etag)
    expect((await col.itemWithETag(item.id)).item.id).toBe(item.id)
    await col.delete(item.id, { ifMatch: current.etag })
    expect((await refusal(col.itemWithETag(item.id))).status).toBe(404)
  })
})

describe('conditional writes', () => {
  it('refuses ifMatch with several ids before sending anything', async () => {
    const col = clientAs('ann').team('acme').collection('shopProducts')
    const a = await col.create({ title: unique('a'), price: '1' })
    const b = await col.create({ title: unique('b'), price: '1' })
    await expect(col.delete([a.id, b.id], { ifMatch: '*' })).rejects.toBeInstanceOf(TypeError)
    expect((await col.itemWithETag(a.id)).item.id).toBe(a.id)
  })

  it('moves a tree node with ifMatch only if it has not changed', async () => {
    const cats = clientAs('ann').team('acme').collection('shopCategories')
    const root = await cats.create({ title: unique('root') })
    const { item: node, etag } = await cats.createWithETag({ title: unique('node'), parentId: root.id })
    const current = await cats.updateWithETag(node.id, { title: unique('renamed') })
    const err = await refusal(cats.move(node.id, { parentId: null }, { ifMatch: etag }))
    expect(err.status).toBe(412)
    expect(err.etag).toBe(current.etag)
    expect((await cats.itemWithETag(node.id)).item.parentId).toBe(root.id)
    const moved = await cats.move(node.id, { parentId: null }, { ifMatch: current.etag })
    expect(moved.parentId).toBeNull()
  })
})
