// Batches (TeamClient.batch) against the real kit serve: several writes of a
// team in one transaction, POST /api/teams/{team}/kit-batch.
import { describe, expect, it } from 'vitest'
import { KitError, type Batch, type ChangeEvent, type KitRecord, type Mutation } from '../src/index'
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

/** until waits for cond; the limit only keeps a broken test from hanging. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** Category is the record type `kit gen types --lang ts` writes for shopCategories (no index signature). */
interface Category {
  id: string
  title: string
  description?: string | null
  parentId?: string | null
}

describe('batch', () => {
  it('gives a later request the id a former one created, in its body and in its URL', async () => {
    const team = clientAs('ann').team('acme')
    const title = unique('lamps')
    const b = team.batch()
    const cat = b.create<Category>('shopCategories', { title })
    const lamp = b.create('shopProducts', { title: unique('lamp'), price: '19.90', categoryId: b.ref(cat, 'id') })
    const described = b.update('shopCategories', b.ref(cat, 'id'), { description: 'lamps and shades' })
    expect([cat, lamp, described]).toEqual([0, 1, 2])
    expect(b.length).toBe(3)

    const results = await b.run()
    expect(results.responses.map((r) => r.status)).toEqual([201, 201, 200])
    const category: Category = results.get(cat).body
    expect(category.title).toBe(title)
    expect(results.get(lamp).body.categoryId).toBe(category.id)
    expect(results.get(described).body.id).toBe(category.id)
    expect(results.get(lamp).headers.Location).toBe(`/api/teams/acme/shop-products/${results.get(lamp).body.id}`)
    expect(results.get(described).etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/)

    const stored = await team.collection('shopCategories').itemWithETag(category.id)
    expect(stored.item.description).toBe('lamps and shades')
    expect(stored.etag).toBe(results.get(described).etag)
    expect((await team.collection('shopProducts').item(results.get(lamp).body.id)).categoryId).toBe(category.id)
  })

  it('runs every operation: create, update and move with ifMatch, reorder, delete with ifMatch, deleteMany', async () => {
    const team = clientAs('ann').team('acme')
    const cats = team.collection('shopCategories')
    const products = team.collection('shopProducts')
    const parent = await cats.create({ title: unique('parent') })
    const c1 = await cats.createWithETag({ title: unique('c1'), parentId: parent.id })
    const c2 = await cats.createWithETag({ title: unique('c2'), parentId: parent.id })
    const x = await products.createWithETag({ title: unique('x'), price: '1' })
    const y = await products.create({ title: unique('y'), price: '1' })
    const z = await products.create({ title: unique('z'), price: '1' })

    const b = team.batch()
    const n1 = b.create('shopCategories', { title: unique('n1'), parentId: parent.id })
    const renamed = b.update('shopCategories', c2.item.id, { title: unique('c2 renamed') }, { ifMatch: c2.etag })
    const moved = b.move('shopCategories', c1.item.id, { parentId: b.ref(n1, 'id') }, { ifMatch: c1.etag })
    const order = b.reorder('shopCategories', [b.ref(n1, 'id'), c2.item.id])
    const gone = b.delete('shopProducts', x.item.id, { ifMatch: x.etag })
    b.deleteMany('shopProducts', [y.id, z.id])
    const results = await b.run()

    expect(results.responses.map((r) => r.status)).toEqual([201, 200, 200, 200, 204, 204])
    const n1id = results.get(n1).body.id
    expect(results.get(order).body.items.map((r) => r.id)).toEqual([n1id, c2.item.id])
    expect(results.get(moved).body.parentId).toBe(n1id)
    expect(results.get(renamed).body.title).toContain('c2 renamed')
    expect(results.get(gone).body).toBeUndefined()
    // @ts-expect-error a delete answers no record
    expect(results.get(gone).body?.id).toBeUndefined()
    expect((await cats.tree({ root: parent.id })).map((r) => r.id)).toEqual([parent.id, n1id, c1.item.id, c2.item.id])
    expect(await products.items([x.item.id, y.id, z.id])).toEqual([])
  })

  // Each case ends a batch of three good writes with one that fails: the
  // batch rejects with that request's error and index, and none of the
  // three is written.
  const failing: Array<{ name: string; status: number; add: (b: Batch, p: { id: string; etag: string }) => void; data?: Record<string, unknown> }> = [
    {
      name: 'a create without its required title',
      status: 400,
      add: (b) => b.create('shopProducts', { price: '1' }),
      data: { fields: { title: 'is required' } },
    },
    {
      name: 'an update whose If-Match is stale',
      status: 412,
      add: (b, p) => b.update('shopProducts', p.id, { stock: 1 }, { ifMatch: '"stale"' }),
      data: { etag: expect.any(String) },
    },
    {
      name: 'the delete of a record that does not exist',
      status: 404,
      add: (b) => b.delete('shopProducts', '00000000-0000-7000-8000-000000000000'),
    },
    {
      name: 'a reference to a field the answer lacks',
      status: 400,
      add: (b) => b.update('shopProducts', b.ref(0, 'nothing'), { stock: 1 }),
    },
  ]
  it.each(failing)('writes nothing when the last request is $name, and rejects with its status and index', async (c) => {
    const kit = clientAs('ann')
    const team = kit.team('acme')
    const products = team.collection('shopProducts')
    const before = await products.createWithETag({ title: unique('kept'), price: '1', stock: 3 })
    const catTitle = unique('never')
    const lampTitle = unique('never lamp')
    const seen: Mutation[] = []
    kit.onMutation((m) => seen.push(m))

    const b = team.batch()
    const cat = b.create('shopCategories', { title: catTitle })
    b.create('shopProducts', { title: lampTitle, price: '1', categoryId: b.ref(cat, 'id') })
    b.update('shopProducts', before.item.id, { stock: 99 })
    c.add(b, { id: before.item.id, etag: before.etag })
    const err = await refusal(b.run())

    expect(err.status).toBe(c.status)
    expect(err.data?.index).toBe(3)
    expect(err.message).toMatch(/^request 3: /)
    if (c.data) expect(err.data).toMatchObject(c.data)
    expect((await team.collection('shopCategories').list({ search: catTitle })).items).toEqual([])
    expect((await products.list({ search: lampTitle })).items).toEqual([])
    const now = await products.itemWithETag(before.item.id)
    expect(now.item.stock).toBe(3)
    expect(now.etag).toBe(before.etag)
    expect(seen).toEqual([])
  })

  it('rejects a batch without requests with the server 400, without an index', async () => {
    const err = await refusal(clientAs('ann').team('acme').batch().run())
    expect(err.status).toBe(400)
    expect(err.data?.index).toBeUndefined()
    expect(err.data?.fields).toEqual({ requests: 'must list at least one request' })
  })

  it("rejects a member of another team with 403 and writes nothing", async () => {
    const title = unique('foreign')
    const b = clientAs('gus').team('acme').batch()
    b.create('blogPosts', { title })
    expect((await refusal(b.run())).status).toBe(403)
    expect((await clientAs('ann').team('acme').collection('blogPosts').list({ search: title })).items).toEqual([])
  })

  it('refuses a ref to a request not in the batch yet, or to a name that is not a field, before sending', () => {
    const b = clientAs('ann').team('acme').batch()
    expect(() => b.ref(0, 'id')).toThrow(RangeError)
    const first = b.create('blogPosts', { title: unique('ref') })
    expect(b.ref(first, 'id')).toBe('{{0.id}}')
    expect(() => b.ref(1, 'id')).toThrow(RangeError)
    expect(() => b.ref(-1, 'id')).toThrow(RangeError)
    expect(() => b.ref(first, 'a.b')).toThrow(TypeError)
  })

  it('drops the cached reads of the collections it wrote and their references, and tells the listeners once per collection and operation', async () => {
    const kit = clientAs('ann', { cache: true })
    const team = kit.team('acme')
    await team.collection('shopProducts').list()
    await team.collection('shopCategories').list()
    await team.collection('blogPosts').list()
    const seen: Mutation[] = []
    kit.onMutation((m) => seen.push(m))

    const b = team.batch()
    const a = b.create('shopProducts', { title: unique('a'), price: '1' })
    const c = b.create('shopProducts', { title: unique('c'), price: '1' })
    const changed = b.update('shopProducts', b.ref(a, 'id'), { stock: 2 })
    const results = await b.run()

    const cached = kit.cache!.keys().map((k) => k.split(':')[1])
    expect(cached).toEqual(['blogPosts'])
    const [aid, cid] = [results.get(a).body.id, results.get(c).body.id]
    expect(results.get(changed).body.id).toBe(aid)
    expect(seen).toEqual([
      { operation: 'create', collection: 'shopProducts', team: 'acme', ids: [aid, cid], invalidated: ['shopProducts', 'shopCategories'], source: 'client' },
      { operation: 'update', collection: 'shopProducts', team: 'acme', ids: [aid], invalidated: ['shopProducts', 'shopCategories'], source: 'client' },
    ])
  })

  it("reports the batch's writes to the client's listeners once, not again when the change stream reports them", async () => {
    const kit = clientAs('bea')
    const team = kit.team('acme')
    const seen: Mutation[] = []
    kit.onMutation((m) => seen.push(m))
    const changes: ChangeEvent[] = []
    let opened = false
    const sub = team.subscribe({ collections: ['blogPosts'], onChange: (c) => changes.push(c), onOpen: () => (opened = true) })
    try {
      await until(() => opened, 'the stream to open')
      const b = team.batch()
      const first = b.create('blogPosts', { title: unique('own a') })
      b.create('blogPosts', { title: unique('own b') })
      b.update('blogPosts', b.ref(first, 'id'), { title: unique('own a renamed') })
      const results = await b.run()
      const ids = results.responses.map((r) => (r.body as KitRecord).id)
      await until(() => changes.filter((c) => ids.includes(c.itemId ?? '')).length === 3, 'the three changes')
      // A write after the batch: once its change has come, every change of the batch has too.
      const after = await team.collection('blogPosts').create({ title: unique('after') })
      await until(() => changes.some((c) => c.itemId === after.id), 'the change after')
      expect(changes.filter((c) => ids.includes(c.itemId ?? '')).map((c) => c.operation)).toEqual(['create', 'create', 'update'])
      expect(seen.filter((m) => m.ids.some((id) => ids.includes(id))).map((m) => [m.operation, m.source])).toEqual([
        ['create', 'client'],
        ['update', 'client'],
      ])
    } finally {
      sub.close()
    }
  })
})
