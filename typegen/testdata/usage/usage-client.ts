// Compiled by web/web_test.go with the ts output of examples/schemas
// (kit.ts): the generated types used through @collectionkit/client. The
// lines marked to expect an error must be errors, so the types are as
// narrow as they claim.
import { KitClient } from '@collectionkit/client'
import {
  collections,
  type CollectionKey,
  type CollectionTypes,
  type Product,
  type ProductInput,
  type ProductQuery,
  type ProductResponse,
} from './kit'

export async function usage(client: KitClient): Promise<unknown[]> {
  const products = client.team('acme').collection<Product, ProductQuery>(collections.shopProducts.key)
  const query: ProductQuery = {
    search: 'lamp',
    sort: ['-price', 'title'],
    filter: { price: { gte: '10', lt: 100 }, isActive: true, categoryId: null, tags: { isNull: false } },
    pageSize: 20,
  }
  const page: ProductResponse = await products.list(query)
  const input: ProductInput = { title: 'Lamp', price: '19.90', tags: ['light'], releasedAt: '2026-01-01' }
  const created: Product = await products.create(input)
  const updated: Product = await products.update(created.id, { stock: 3 } satisfies Partial<ProductInput>)
  const key: CollectionKey = 'shopCategories'
  const apiPath: 'shop-products' = collections.shopProducts.apiPath
  const strategy: 'restful' = collections.shopProducts.fetchStrategy
  const ref: 'shopCategories' = collections.shopProducts.references.categoryId
  const record: CollectionTypes['shopProducts']['record'] = updated
  const price: string = record.price
  const stock: number | null = record.stock

  // @ts-expect-error: title is required
  const noTitle: ProductInput = { price: '1.00' }
  // @ts-expect-error: decimals are strings in the input
  const numberPrice: ProductInput = { title: 'x', price: 19.9 }
  // @ts-expect-error: the server sets the id
  const withID: ProductInput = { id: 'x', title: 'x', price: '1.00' }
  // @ts-expect-error: no such field
  const typo = created.titel
  // @ts-expect-error: json fields cannot be sorted
  const jsonSort: ProductQuery = { sort: 'dimensions' }
  // @ts-expect-error: booleans take no ordering operators
  const boolOrder: ProductQuery = { filter: { isActive: { gt: true } } }
  // @ts-expect-error: json fields are only tested for null
  const jsonEq: ProductQuery = { filter: { dimensions: { eq: 1 } } }
  // @ts-expect-error: not a collection key
  const otherKey: CollectionKey = 'products'

  return [page.items[0]?.title, key, apiPath, strategy, ref, price, stock, noTitle, numberPrice, withID, typo, jsonSort, boolOrder, jsonEq, otherKey]
}
