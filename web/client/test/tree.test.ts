import { describe, expect, it } from 'vitest'
import type { KitError } from '../src/index'
import { clientAs, unique } from './helpers'

// shopCategories is a tree in the test schemas (hierarchy enabled).
describe('trees', () => {
  it('creates children under a parent, moves a subtree and reads the tree depth first', async () => {
    const categories = clientAs('ann').team('acme').collection('shopCategories')
    const root = await categories.create({ title: unique('root') })
    const a = await categories.create({ title: unique('a'), parentId: root.id })
    const b = await categories.create({ title: unique('b'), parentId: root.id })
    const a1 = await categories.create({ title: unique('a1'), parentId: a.id })

    let tree = await categories.tree({ root: root.id })
    expect(tree.map((n) => n.id)).toEqual([root.id, a.id, a1.id, b.id])

    const moved = await categories.move(a.id, { parentId: b.id })
    expect(moved.parentId).toBe(b.id)
    tree = await categories.tree({ root: root.id })
    expect(tree.map((n) => [n.id, n.depth])).toEqual([
      [root.id, 0],
      [b.id, 1],
      [a.id, 2],
      [a1.id, 3],
    ])
  })

  it('reorders siblings by a full id list and by partial updates', async () => {
    const categories = clientAs('ann').team('acme').collection('shopCategories')
    const root = await categories.create({ title: unique('root') })
    const x = await categories.create({ title: unique('x'), parentId: root.id })
    const y = await categories.create({ title: unique('y'), parentId: root.id })
    const z = await categories.create({ title: unique('z'), parentId: root.id })

    const byIds = await categories.reorder([z.id, x.id, y.id])
    expect(byIds.map((n) => n.id)).toEqual([z.id, x.id, y.id])

    const byUpdates = await categories.reorder([{ id: y.id, order: 0 }])
    expect(byUpdates.map((n) => n.id)).toEqual([y.id, z.id, x.id])
    expect((await categories.tree({ root: root.id })).slice(1).map((n) => n.id)).toEqual([y.id, z.id, x.id])
  })

  it('refuses to move a node under its own descendant with a 400', async () => {
    const categories = clientAs('ann').team('acme').collection('shopCategories')
    const root = await categories.create({ title: unique('root') })
    const child = await categories.create({ title: unique('child'), parentId: root.id })
    const err = await categories.move(root.id, { parentId: child.id }).catch((e: unknown) => e)
    expect((err as KitError).status).toBe(400)
  })
})
