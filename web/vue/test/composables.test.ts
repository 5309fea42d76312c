import { KitClient, type KitError } from '@collectionkit/client'
import { describe, expect, inject, it } from 'vitest'
import { nextTick, reactive, ref } from 'vue'
import {
  useCollectionItem,
  useCollectionMutation,
  useCollectionProxy,
  useCollectionQuery,
  useCollections,
  useKitEvents,
  useKitEventTracker,
} from '../src/index'
import { unique, withKit } from './harness'

async function seedProducts(tag: string, titles: string[]): Promise<string[]> {
  const s = inject('kit')
  const products = new KitClient({ baseURL: s.baseURL, token: s.tokens.ann }).team('acme').collection('shopProducts')
  const ids: string[] = []
  for (const t of titles) ids.push((await products.create({ title: `${tag} ${t}`, price: '1' })).id)
  return ids
}

describe('useCollectionQuery', () => {
  it('fetches at once and refetches when the reactive query changes', async () => {
    const tag = unique('q')
    await seedProducts(tag, ['Lamp', 'Desk'])
    const query = reactive({ search: `${tag} Lamp`, sort: 'title' })
    const q = withKit('ann', { team: 'acme' }, () => useCollectionQuery('shopProducts', { query }))
    try {
      await expect.poll(() => q.items.value.map((p) => p.title)).toEqual([`${tag} Lamp`])
      expect(q.data.value?.pagination.totalItems).toBe(1)
      expect(q.error.value).toBeNull()

      query.search = tag
      await nextTick()
      expect(q.pending.value).toBe(true)
      await expect.poll(() => q.items.value.map((p) => p.title)).toEqual([`${tag} Desk`, `${tag} Lamp`])
      expect(q.pending.value).toBe(false)
    } finally {
      q.dispose()
    }
  })

  it('does not refetch on a query change when watch is false, until refresh', async () => {
    const tag = unique('nowatch')
    await seedProducts(tag, ['A', 'B'])
    const query = ref({ search: `${tag} A` })
    const q = withKit('ann', { team: 'acme' }, () => useCollectionQuery('shopProducts', { query, watch: false }))
    try {
      await expect.poll(() => q.items.value.length).toBe(1)
      query.value = { search: tag }
      await nextTick()
      expect(q.pending.value).toBe(false)
      await q.refresh()
      expect(q.items.value).toHaveLength(2)
    } finally {
      q.dispose()
    }
  })

  it('takes the team from the route parameter when there is no current team', async () => {
    const route = reactive({ path: '/teams/acme/products', params: { team: 'acme' } as Record<string, string> })
    const q = withKit('ann', { route }, () => useCollectionQuery('shopProducts'))
    try {
      await expect.poll(() => q.data.value?.items[0]?.teamId).toBe(inject('kit').teams.acme)
      route.params = { team: 'globex' }
      await expect.poll(() => q.error.value?.status).toBe(403)
    } finally {
      q.dispose()
    }
  })

  it('sets the spec 400 error when there is neither a current team nor a team parameter', () => {
    const q = withKit('ann', {}, () => useCollectionQuery('shopProducts'))
    expect(q.error.value?.status).toBe(400)
    q.dispose()
  })

  it('deleteItems refreshes the query', async () => {
    const tag = unique('del')
    const ids = await seedProducts(tag, ['One', 'Two', 'Three'])
    const q = withKit('ann', { team: 'acme' }, () => ({
      ...useCollectionQuery('shopProducts', { query: { search: tag, sort: 'title' } }),
      mutation: useCollectionMutation('shopProducts'),
    }))
    try {
      await expect.poll(() => q.items.value).toHaveLength(3)
      await q.mutation.deleteItems([ids[0]!, ids[2]!])
      await expect.poll(() => q.items.value.map((p) => p.title)).toEqual([`${tag} Two`])
      expect(q.mutation.error.value).toBeNull()
    } finally {
      q.dispose()
    }
  })

  it('deleteItems of several ids deletes none when one cannot go, and sets error', async () => {
    const tag = unique('del-none')
    const ids = await seedProducts(tag, ['One', 'Two'])
    const q = withKit('ann', { team: 'acme' }, () => ({
      ...useCollectionQuery('shopProducts', { query: { search: tag, sort: 'title' } }),
      mutation: useCollectionMutation('shopProducts'),
    }))
    try {
      await expect.poll(() => q.items.value).toHaveLength(2)
      const err = await q.mutation.deleteItems([ids[0]!, '00000000-0000-7000-8000-000000000000', ids[1]!]).catch((e: unknown) => e)
      expect((err as KitError).status).toBe(404)
      expect(q.mutation.error.value?.status).toBe(404)
      await q.refresh()
      expect(q.items.value.map((p) => p.title)).toEqual([`${tag} One`, `${tag} Two`])
    } finally {
      q.dispose()
    }
  })

  it('create through useCollectionMutation refreshes the query, and a failed write sets error', async () => {
    const tag = unique('create')
    const q = withKit('ann', { team: 'acme' }, () => ({
      ...useCollectionQuery('shopProducts', { query: { search: tag } }),
      mutation: useCollectionMutation('shopProducts'),
    }))
    try {
      await expect.poll(() => q.data.value).not.toBeNull()
      expect(q.items.value).toEqual([])
      await q.mutation.create({ title: `${tag} New`, price: '2' })
      await expect.poll(() => q.items.value.map((p) => p.title)).toEqual([`${tag} New`])

      const err = await q.mutation.create({ price: '2' }).catch((e: unknown) => e)
      expect((err as KitError).status).toBe(400)
      expect(q.mutation.error.value?.status).toBe(400)
    } finally {
      q.dispose()
    }
  })
})

describe('useCollectionItem', () => {
  it('refetches when the id ref changes', async () => {
    const tag = unique('item')
    const [a, b] = await seedProducts(tag, ['A', 'B'])
    const id = ref(a)
    const view = withKit('ann', { team: 'acme' }, () => useCollectionItem('shopProducts', id))
    try {
      await expect.poll(() => view.item.value?.title).toBe(`${tag} A`)
      id.value = b
      await expect.poll(() => view.item.value?.title).toBe(`${tag} B`)
      id.value = undefined
      await nextTick()
      expect(view.item.value).toBeNull()
    } finally {
      view.dispose()
    }
  })

  it('accepts a getter id and reads a query-strategy collection by ?ids=', async () => {
    const s = inject('kit')
    const cat = await new KitClient({ baseURL: s.baseURL, token: s.tokens.ann }).team('acme').collection('shopCategories').create({ title: unique('cat') })
    const holder = reactive({ id: cat.id })
    const view = withKit('ann', { team: 'acme' }, () => useCollectionItem('shopCategories', () => holder.id))
    try {
      await expect.poll(() => view.item.value?.id).toBe(cat.id)
      holder.id = '00000000-0000-7000-8000-000000000000'
      await expect.poll(() => view.error.value?.status).toBe(404)
      expect(view.item.value).toBeNull()
    } finally {
      view.dispose()
    }
  })

  it('is refreshed after an update through useCollectionMutation, and null after a delete', async () => {
    const tag = unique('fresh')
    const [id] = await seedProducts(tag, ['A'])
    const view = withKit('ann', { team: 'acme' }, () => ({
      ...useCollectionItem('shopProducts', id),
      mutation: useCollectionMutation('shopProducts'),
    }))
    try {
      await expect.poll(() => view.item.value?.stock).toBe(0)
      await view.mutation.update(id!, { stock: 7 })
      await expect.poll(() => view.item.value?.stock).toBe(7)
      await view.mutation.deleteItems([id!])
      expect(view.item.value).toBeNull()
    } finally {
      view.dispose()
    }
  })

  it('reads through /api/super-admin/<collection>/<id> on a super-admin route', async () => {
    const [id] = await seedProducts(unique('sa'), ['A'])
    const requests: string[] = []
    const route = { path: '/super-admin/records', params: {} }
    const view = withKit(
      'root',
      {
        route,
        clientOptions: {
          fetch: (input, init) => {
            requests.push(new URL(String(input)).pathname)
            return fetch(input, init)
          },
        },
      },
      () => useCollectionItem('shopProducts', id),
    )
    try {
      await expect.poll(() => view.item.value?.id).toBe(id)
      expect(requests).toEqual([`/api/super-admin/shopProducts/${id}`])
    } finally {
      view.dispose()
    }
  })
})

describe('useCollections', () => {
  it('exposes the registry, the component maps, and undefined for an unregistered collection', async () => {
    const c = withKit('ann', { collections: { teamUsers: { name: 'teamUsers', layer: 'external', componentName: null, dependentFieldComponents: { role: 'RolePicker' } } } }, () =>
      useCollections(),
    )
    await c.ready
    expect(c.error.value).toBeNull()
    expect(c.getConfig('shopProducts')?.apiPath).toBe('shop-products')
    expect(c.getConfig('noSuchCollection')).toBeUndefined()
    expect(c.getConfig('toString')).toBeUndefined()
    expect(c.componentMap.value).toMatchObject({ shopProducts: 'ShopProductsForm', shopCategories: 'ShopCategoriesForm' })
    expect(c.componentMap.value).not.toHaveProperty('teamUsers')
    expect(c.dependentFieldComponentMap.value).toEqual({ teamUsers: { role: 'RolePicker' } })
    expect(Object.keys(c.configs.value)).toEqual(expect.arrayContaining(['shopProducts', 'shopCategories', 'blogPosts', 'teamUsers']))
    c.dispose()
  })
})

describe('useCollectionProxy', () => {
  it('returns applyTransform and getProxiedEndpoint with the spec semantics', () => {
    const { applyTransform, getProxiedEndpoint } = useCollectionProxy()
    const config = { proxy: { enabled: true, sourceEndpoint: 'shop-products', transform: (p: { id: string; sku: string }) => ({ id: p.id, title: p.sku }) } }
    expect(getProxiedEndpoint(config, 'teamProducts')).toBe('shop-products')
    expect(applyTransform([{ id: '1', sku: 'L-1' }], config)).toEqual([{ id: '1', title: 'L-1' }])
  })
})

describe('useKitEventTracker and useKitEvents', () => {
  it('counts a failed attempt in the reactive health record', async () => {
    const t = withKit('ann', { team: 'no-such-team', tracker: { errorHandling: { mode: 'silent', logToConsole: false } } }, () => useKitEventTracker())
    await t.track({ operation: 'create', collection: 'shopProducts', itemId: 'x' })
    expect(t.health.value).toMatchObject({ total: 1, failed: 1, lastError: 'team not found' })
    t.trackInBackground({ operation: 'create', collection: 'shopProducts', itemId: 'x' })
    await expect.poll(() => t.health.value.failed).toBe(2)
    t.dispose()
  })

  it('asks for page 1 of 50 by default and refetches when the filters change', async () => {
    const urls: URL[] = []
    const filters = ref({ collectionName: 'shopProducts' })
    const e = withKit(
      'ann',
      {
        team: 'acme',
        clientOptions: {
          fetch: (input, init) => {
            urls.push(new URL(String(input)))
            return fetch(input, init)
          },
        },
      },
      () => useKitEvents({ filters }),
    )
    try {
      await expect.poll(() => e.pending.value).toBe(false)
      expect(urls[0]!.pathname).toBe('/api/teams/acme/kit-events')
      expect(Object.fromEntries(urls[0]!.searchParams)).toEqual({ collectionName: 'shopProducts', page: '1', pageSize: '50' })
      filters.value = { collectionName: 'shopCategories' }
      await expect.poll(() => urls.length).toBe(2)
      expect(urls[1]!.searchParams.get('collectionName')).toBe('shopCategories')
    } finally {
      e.dispose()
    }
  })
})
