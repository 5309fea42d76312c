import { describe, expect, it } from 'vitest'
import { parseEvents, type ChangeEvent, type KitError, type Mutation } from '../src/index'
import { clientAs, unique } from './helpers'

/** until waits for cond; the limit only keeps a broken test from hanging. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe('change stream', () => {
  it('parses SSE text into events, keeping an unfinished event for later', () => {
    const { events, rest } = parseEvents('retry: 2000\n\n: heartbeat\n\nid: 7\ndata: {"a":1}\n\nevent: ready\nid: 7\ndata: {}\n\nid: 8\nda')
    expect(events).toEqual([
      { event: '', id: '7', data: '{"a":1}' },
      { event: 'ready', id: '7', data: '{}' },
    ])
    expect(rest).toBe('id: 8\nda')
  })

  it("drops the cached reads another writer's change names and tells the mutation listeners", async () => {
    const kit = clientAs('bea', { cache: true })
    const team = kit.team('acme')
    await team.collection('shopProducts').list()
    await team.collection('shopCategories').list()
    await team.collection('blogPosts').list()
    const seen: Mutation[] = []
    kit.onMutation((m) => seen.push(m))
    const changes: ChangeEvent[] = []
    let opened = false
    const sub = team.subscribe({ onChange: (c) => changes.push(c), onOpen: () => (opened = true) })
    try {
      await until(() => opened, 'the stream to open')
      const created = await clientAs('ann').team('acme').collection('shopProducts').create({ title: unique('streamed'), price: '1' })
      await until(() => changes.some((c) => c.itemId === created.id), 'the change')
      const change = changes.find((c) => c.itemId === created.id)!
      expect(change).toMatchObject({
        operation: 'create',
        collection: 'shopProducts',
        invalidate: ['collection:shopProducts:*', 'collection:shopCategories:*'],
      })
      expect(kit.cache!.keys().map((k) => k.split(':')[1])).not.toContain('shopProducts')
      expect(kit.cache!.keys().map((k) => k.split(':')[1])).not.toContain('shopCategories')
      expect(seen.find((m) => m.ids.includes(created.id))).toMatchObject({
        operation: 'create',
        source: 'stream',
        invalidated: ['shopProducts', 'shopCategories'],
      })
    } finally {
      sub.close()
    }
  })

  it("reports the client's own write to its listeners once", async () => {
    const kit = clientAs('bea')
    const notes = kit.team('acme').collection('blogPosts')
    const seen: Mutation[] = []
    kit.onMutation((m) => seen.push(m))
    const changes: ChangeEvent[] = []
    let opened = false
    const sub = kit.team('acme').subscribe({ collections: ['blogPosts'], onChange: (c) => changes.push(c), onOpen: () => (opened = true) })
    try {
      await until(() => opened, 'the stream to open')
      const post = await notes.create({ title: unique('own') })
      await until(() => changes.some((c) => c.itemId === post.id), 'the change')
      expect(seen.filter((m) => m.ids.includes(post.id))).toEqual([
        expect.objectContaining({ operation: 'create', source: 'client' }),
      ])
    } finally {
      sub.close()
    }
  })

  it('resumes after lastEventId with the missed changes in order', async () => {
    let opened = false
    const first = clientAs('bea').team('acme').subscribe({ collections: ['blogPosts'], onOpen: () => (opened = true) })
    await until(() => opened, 'the stream to open')
    const from = first.lastEventId
    first.close()
    const writer = clientAs('ann').team('acme').collection('blogPosts')
    const a = await writer.create({ title: unique('missed a') })
    const b = await writer.create({ title: unique('missed b') })
    const changes: ChangeEvent[] = []
    opened = false
    const again = clientAs('bea').team('acme').subscribe({ collections: ['blogPosts'], lastEventId: from, onChange: (c) => changes.push(c), onOpen: () => (opened = true) })
    try {
      await until(() => opened, 'the resumed stream to open')
      const mine = changes.map((c) => c.itemId).filter((id) => id === a.id || id === b.id)
      expect(mine).toEqual([a.id, b.id])
    } finally {
      again.close()
    }
  })

  it('clears the cache and tells onReset when it cannot resume', async () => {
    const kit = clientAs('bea', { cache: true })
    await kit.team('acme').collection('blogPosts').list()
    let reset = false
    const seen: Mutation[] = []
    kit.onMutation((m) => seen.push(m))
    const sub = kit.team('acme').subscribe({ lastEventId: 'not-a-position', onReset: () => (reset = true) })
    try {
      await until(() => reset, 'the reset')
      expect(kit.cache!.keys()).toEqual([])
      expect(seen[0]).toMatchObject({ operation: 'reset', source: 'stream' })
      expect(seen[0]!.invalidated).toContain('blogPosts')
    } finally {
      sub.close()
    }
  })

  it('stops with the error when the server refuses the stream', async () => {
    let refused: KitError | undefined
    let opened = false
    clientAs('gus').team('acme').subscribe({ onError: (e) => (refused = e), onOpen: () => (opened = true) })
    await until(() => refused !== undefined, 'the refusal')
    expect(refused!.status).toBe(403)
    expect(opened).toBe(false)
  })
})
