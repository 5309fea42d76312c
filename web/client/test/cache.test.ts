import { describe, expect, it } from 'vitest'
import { CollectionCache, collectionCacheKey, type Mutation } from '../src/index'
import { clientAs, unique } from './helpers'

describe('cache', () => {
  it('keys reads as collection:<key>:<query> and drops them by prefix', () => {
    const cache = new CollectionCache()
    cache.set(collectionCacheKey('shopProducts', 'acme:list?page=1'), 1)
    cache.set(collectionCacheKey('shopProductsArchive', 'acme:list?page=1'), 2)
    expect(cache.invalidateCollection('shopProducts')).toBe(1)
    expect(cache.keys()).toEqual(['collection:shopProductsArchive:acme:list?page=1'])
  })

  it('answers a repeated read from the cache until a write invalidates it', async () => {
    const kit = clientAs('ann', { cache: true })
    const writer = clientAs('ann')
    const categories = kit.team('acme').collection('shopCategories')
    const tag = unique('cached')
    await categories.create({ title: `${tag} 1` })
    const first = await categories.list({ search: tag })
    expect(first.pagination.totalItems).toBe(1)

    // A write by another client is not seen: the answer comes from the cache.
    await writer.team('acme').collection('shopCategories').create({ title: `${tag} 2` })
    expect((await categories.list({ search: tag })).pagination.totalItems).toBe(1)
    expect((await categories.list({ search: tag }, { force: true })).pagination.totalItems).toBe(2)

    // A write through this client drops the collection's cached reads.
    await categories.create({ title: `${tag} 3` })
    expect((await categories.list({ search: tag })).pagination.totalItems).toBe(3)
  })

  it('a read that was under way when a write invalidated its collection does not put its older answer in the cache', async () => {
    // The list's answer is held back (the real server's, delivered late)
    // until the write has returned and dropped the cached reads. The write
    // is sent only once the server has answered the list, so the server
    // cannot see them in the other order.
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let answered!: () => void
    const listAnswered = new Promise<void>((resolve) => (answered = resolve))
    let holdNext = false
    const kit = clientAs('ann', {
      cache: true,
      fetch: async (input, init) => {
        const hold = holdNext
        holdNext = false
        const res = await fetch(input, init)
        if (hold) {
          answered()
          await held
        }
        return res
      },
    })
    const categories = kit.team('acme').collection('shopCategories')
    const tag = unique('raced')
    await categories.create({ title: `${tag} 1` })
    holdNext = true
    const before = categories.list({ search: tag })
    await listAnswered
    await categories.create({ title: `${tag} 2` })
    release()
    expect((await before).pagination.totalItems).toBe(1)
    expect((await categories.list({ search: tag })).pagination.totalItems).toBe(2)
  })

  it('a mutation of shopProducts drops the cached shopCategories it references and keeps unrelated collections', async () => {
    const kit = clientAs('ann', { cache: true })
    const team = kit.team('acme')
    await team.collection('shopCategories').list()
    await team.collection('blogPosts').list()
    await team.collection('shopProducts').list()
    const cached = () => kit.cache!.keys().map((k) => k.split(':')[1])
    expect(cached().sort()).toEqual(['blogPosts', 'shopCategories', 'shopProducts'])

    const seen: Mutation[] = []
    kit.onMutation((m) => seen.push(m))
    await team.collection('shopProducts').create({ title: unique('ref'), price: '1' })

    expect(cached()).toEqual(['blogPosts'])
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ operation: 'create', collection: 'shopProducts', invalidated: ['shopProducts', 'shopCategories'] })
  })

  it('a mutation of shopCategories keeps shopProducts, which references it but is not referenced by it', async () => {
    const kit = clientAs('ann', { cache: true })
    const team = kit.team('acme')
    await team.collection('shopProducts').list()
    await team.collection('shopCategories').create({ title: unique('cat') })
    expect(kit.cache!.keys().map((k) => k.split(':')[1])).toEqual(['shopProducts'])
  })
})
