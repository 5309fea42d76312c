// The composables kit gen types --lang vue writes for examples/schemas
// (test/generated/kit.ts, kept equal to the generator's output by the
// typegen tests), against the real kit server: typed lists that refetch on
// a query change, items, and mutations that refresh both.
import { describe, expect, it } from 'vitest'
import { nextTick, reactive, ref } from 'vue'
import {
  collections,
  useShopProducts,
  useShopProductsItem,
  useShopProductsMutation,
  type Product,
  type ProductQuery,
} from './generated/kit'
import { unique, withKit } from './harness'

describe('generated composables', () => {
  it('useShopProducts lists with a typed query and refetches when it changes', async () => {
    const tag = unique('gen')
    const query = reactive<ProductQuery>({ search: `${tag} Lamp`, sort: '-price' })
    // One app: its query refreshes after the writes of its own client.
    const q = withKit('ann', { team: 'acme' }, () => ({ ...useShopProducts({ query }), ...useShopProductsMutation() }))
    try {
      const lamp: Product = await q.create({ title: `${tag} Lamp`, price: '19.9', stock: 2 })
      await q.create({ title: `${tag} Desk`, price: '120' })
      expect(lamp.price).toBe('19.90')
      expect(lamp.stock).toBe(2)
      expect(lamp.isActive).toBe(true)

      await expect.poll(() => q.items.value.map((p) => p.title)).toEqual([`${tag} Lamp`])
      query.search = tag
      await nextTick()
      await expect.poll(() => q.items.value.map((p) => p.price)).toEqual(['120.00', '19.90'])
      query.filter = { price: { lt: '100' } }
      await expect.poll(() => q.items.value.map((p) => p.title)).toEqual([`${tag} Lamp`])
      expect(q.data.value?.pagination.totalItems).toBe(1)
    } finally {
      q.dispose()
    }
  })

  it('useShopProductsItem reads by id and follows updates and deletes of useShopProductsMutation', async () => {
    const tag = unique('gen-item')
    const id = ref<string | null>(null)
    // One app: the item hears the mutations of its own client.
    const k = withKit('ann', { team: 'acme' }, () => ({ ...useShopProductsItem(id), ...useShopProductsMutation() }))
    try {
      const created = await k.create({ title: `${tag} Pen`, price: '1.5' })
      id.value = created.id
      await expect.poll(() => k.item.value?.title).toBe(`${tag} Pen`)
      await k.update(created.id, { price: '2' })
      await expect.poll(() => k.item.value?.price).toBe('2.00')
      await k.deleteItems([created.id])
      expect(k.item.value).toBeNull()
      expect(collections.shopProducts.apiPath).toBe('shop-products')
    } finally {
      k.dispose()
    }
  })
})
