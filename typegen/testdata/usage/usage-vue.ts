// Compiled by web/web_test.go with the vue output of examples/schemas
// (kit-vue.ts): the generated composables. The lines marked to expect an
// error must be errors, so the composables are as narrow as they claim.
import { reactive, ref } from 'vue'
import {
  useBlogPosts,
  useShopCategoriesItem,
  useShopProducts,
  useShopProductsItem,
  useShopProductsMutation,
  type Category,
  type Post,
  type Product,
  type ProductQuery,
} from './kit-vue'

export function setup(): unknown[] {
  const query = reactive<ProductQuery>({ search: '', page: 1, sort: '-price', filter: { isActive: true } })
  const { items, data, pending, error, refresh } = useShopProducts({ query })
  const first: Product | undefined = items.value[0]
  const total: number | undefined = data.value?.pagination.totalItems
  const { item } = useShopProductsItem(() => first?.id)
  const price: string | undefined = item.value?.price
  const id = ref('c1')
  const category: Category | null = useShopCategoriesItem(id).item.value
  const posts: Post[] = useBlogPosts().items.value
  const { create, update, deleteItems } = useShopProductsMutation()
  const done = create({ title: 'Lamp', price: '19.90' })
    .then((p: Product) => update(p.id, { stock: 2 }, { ifMatch: '"v1"' }))
    .then((p) => deleteItems([p.id]))

  // @ts-expect-error: create needs the required fields
  const missing = create({ stock: 1 })
  // @ts-expect-error: update takes the input's fields only
  const unknown = update('x', { stok: 1 })
  // @ts-expect-error: the query sorts by the collection's fields only
  const badSort = useShopProducts({ query: { sort: 'nope' } })
  // @ts-expect-error: a product's price is a Decimal string
  const numberPrice: number | undefined = item.value?.price

  return [pending, error, refresh, total, price, category, posts, done, missing, unknown, badSort, numberPrice]
}
