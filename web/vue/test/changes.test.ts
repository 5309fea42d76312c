import { KitClient } from '@collectionkit/client'
import { describe, expect, inject, it } from 'vitest'
import { useCollectionItem, useCollectionQuery, useKitChanges } from '../src/index'
import { unique, withKit } from './harness'

function writer(): KitClient {
  const s = inject('kit')
  return new KitClient({ baseURL: s.baseURL, token: s.tokens.ann })
}

describe('useKitChanges', () => {
  it("refreshes the queries and items another writer's change affects", async () => {
    const tag = unique('live')
    const posts = writer().team('acme').collection('blogPosts')
    const first = await posts.create({ title: `${tag} one` })
    const v = withKit('bea', { team: 'acme', clientOptions: { cache: true } }, () => ({
      changes: useKitChanges(),
      list: useCollectionQuery('blogPosts', { query: { search: tag, sort: 'title' } }),
      item: useCollectionItem('blogPosts', first.id),
    }))
    try {
      await expect.poll(() => v.changes.connected.value).toBe(true)
      await expect.poll(() => v.list.items.value.map((p) => p.title)).toEqual([`${tag} one`])
      await expect.poll(() => v.item.item.value?.title).toBe(`${tag} one`)

      await posts.create({ title: `${tag} two` })
      await expect.poll(() => v.list.items.value.map((p) => p.title)).toEqual([`${tag} one`, `${tag} two`])

      await posts.update(first.id, { title: `${tag} one, renamed` })
      await expect.poll(() => v.item.item.value?.title).toBe(`${tag} one, renamed`)
      expect(v.changes.lastChange.value).toMatchObject({ operation: 'update', collection: 'blogPosts', itemId: first.id })
    } finally {
      v.dispose()
    }
    expect(v.changes.connected.value).toBe(false)
  })

  it('sets the error when the server refuses the stream', async () => {
    const v = withKit('gus', { team: 'acme' }, () => useKitChanges())
    try {
      await expect.poll(() => v.error.value?.status).toBe(403)
      expect(v.connected.value).toBe(false)
    } finally {
      v.dispose()
    }
  })
})
