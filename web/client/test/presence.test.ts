import { describe, expect, it } from 'vitest'
import type { KitError, PresenceEvent } from '../src/index'
import { clientAs, server, unique } from './helpers'

/** until waits for cond; the limit only keeps a broken test from hanging. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`timed out waiting for ${what}`)
}

// The suites share one server: these cases use blogPosts, which the Vue
// suites' presence cases do not, and look only at the users they start.
describe('presence channel', () => {
  it('shows a member the others of the team with the collection open, with their records, and never a member of another team', async () => {
    const { users } = server()
    const post = await clientAs('bea').team('acme').collection('blogPosts').create({ title: unique('present') })
    const annSeen: PresenceEvent[] = []
    const gusSeen: PresenceEvent[] = []
    const ann = clientAs('ann').team('acme').presence({ collection: 'blogPosts', onPresence: (e) => annSeen.push(e) })
    const gus = clientAs('gus').team('globex').presence({ collection: 'blogPosts', onPresence: (e) => gusSeen.push(e) })
    const bea = clientAs('bea').team('acme').presence({ collection: 'blog-posts', item: post.id })
    const beaThere = () => annSeen.at(-1)?.viewers.find((v) => v.userId === users.bea)
    try {
      await until(() => !!beaThere(), "bea on ann's presence")
      expect(beaThere()).toMatchObject({ name: 'Bea', items: [post.id] })
      expect(annSeen.at(-1)!.collection).toBe('blogPosts')
      await until(() => gusSeen.length > 0, "gus's first event")
      bea.close()
      await until(() => !beaThere(), 'bea to leave')
      const everyone = [...annSeen, ...gusSeen].flatMap((e) => e.viewers.map((v) => v.userId))
      expect(everyone, 'gus (globex) on acme, or acme on globex').not.toContain(users.gus)
      expect(gusSeen.flatMap((e) => e.viewers.map((v) => v.userId))).not.toContain(users.bea)
      expect(annSeen.flatMap((e) => e.viewers.map((v) => v.userId)), 'ann herself').not.toContain(users.ann)
    } finally {
      for (const s of [ann, gus, bea]) s.close()
    }
  })

  it('stops and reports a refusal: an unknown collection is a 400 naming the parameter', async () => {
    let refused: KitError | undefined
    const sub = clientAs('ann').team('acme').presence({ collection: 'nope', onError: (e) => (refused = e) })
    await until(() => !!refused, 'the refusal')
    expect([refused!.status, refused!.message, refused!.data]).toEqual([400, 'collection: unknown collection "nope"', { param: 'collection' }])
    expect(sub.open).toBe(false)
    sub.close()
  })
})
