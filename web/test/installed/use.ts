// A program of an app outside the repository that installed
// @collectionkit/client and @collectionkit/vue from their npm pack
// tarballs: test/packages.test.ts type-checks it with tsc against the
// installed declarations, compiles it and runs it with node against the
// test's kit serve. Through the client it creates, lists with a search
// and a filter, updates and reads a record while a change subscription
// is open; through the Vue composables (in an app without a DOM) it lists
// and deletes, and the list refetches. It prints a JSON summary, or exits
// 1 with the first thing that went wrong.
import { KitClient, KitError, filter, type ChangeEvent, type KitRecord } from '@collectionkit/client'
import { createKit, useCollectionMutation, useCollectionQuery } from '@collectionkit/vue'
import { createApp, effectScope, watch, type Ref } from 'vue'

declare const process: { env: Record<string, string | undefined>; exit(code: number): never }

interface Product extends KitRecord {
  title: string
  price: string
  stock: number | null
}

const baseURL = process.env.KIT_URL!
const token = process.env.KIT_TOKEN!
const team = process.env.KIT_TEAM!
const marker = `packed${Date.now()}`

// until resolves once cond holds, or rejects after ms naming what.
function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const start = Date.now()
    const tick = (): void => {
      if (cond()) return resolve()
      if (Date.now() - start > ms) return reject(new Error(`timed out waiting for ${what}`))
      setTimeout(tick, 20)
    }
    tick()
  })
}

function expectEqual<T>(what: string, got: T, want: T): void {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`)
  }
}

async function main(): Promise<Record<string, unknown>> {
  const client = new KitClient({ baseURL, token })
  const products = client.team(team).collection<Product>('shopProducts')

  const changes: ChangeEvent[] = []
  let opened = false
  let refusedStream: KitError | undefined
  const sub = client.team(team).subscribe({
    collections: ['shopProducts'],
    onOpen: () => (opened = true),
    onChange: (c) => changes.push(c),
    onError: (err) => (refusedStream = err),
  })
  await until(() => opened || refusedStream !== undefined, 'the change stream to open')
  if (refusedStream) throw refusedStream

  const lamp = await products.create({ title: `Lamp ${marker}`, price: '9.50', stock: 3 })
  const shade = await products.create({ title: `Shade ${marker}`, price: '4.00', stock: 0 })
  expectEqual('created price', lamp.price, '9.50')
  const page = await products.list({ search: marker, filter: filter().gte('stock', 1) })
  expectEqual('filtered ids', page.items.map((p) => p.id), [lamp.id])
  expectEqual('filtered total', page.pagination.totalItems, 1)
  const updated = await products.update(lamp.id, { stock: 4 })
  expectEqual('updated stock', updated.stock, 4)
  expectEqual('read stock', (await products.item(lamp.id, { force: true })).stock, 4)
  let refused = 0
  await products.create({ title: '' }).catch((err: unknown) => {
    if (err instanceof KitError) refused = err.status
  })
  expectEqual('status of a create without a title', refused, 400)
  await until(() => changes.filter((c) => c.itemId === lamp.id).length >= 2, 'the stream to report the create and the update')

  // The Vue composables, in an app without a DOM: a list, and a delete
  // through the mutation composable that the list follows.
  const app = createApp({})
  app.use(createKit({ client, team }))
  const scope = effectScope()
  const { query, mutation } = app.runWithContext(() =>
    scope.run(() => ({
      query: useCollectionQuery<Product>('shopProducts', { query: { search: marker, sort: 'title' } }),
      mutation: useCollectionMutation<Product>('shopProducts'),
    })),
  )!
  await until(() => query.items.value.length === 2, 'useCollectionQuery to list both records')
  const titles = query.items.value.map((p) => p.title)
  const seen: number[] = []
  const stop = watch(query.items as Ref<Product[]>, (items) => seen.push(items.length))
  await mutation.deleteItems([lamp.id, shade.id])
  await until(() => query.items.value.length === 0, 'useCollectionQuery to refetch after the delete')
  stop()
  scope.stop()
  await until(() => changes.some((c) => c.operation === 'delete'), 'the stream to report the delete')
  sub.close()

  return {
    created: [lamp.title, shade.title].map((t) => t.replace(marker, 'M')),
    filtered: page.pagination.totalItems,
    updatedStock: updated.stock,
    refused,
    vueTitles: titles.map((t) => t.replace(marker, 'M')),
    vueAfterDelete: seen.at(-1),
    streamed: [...new Set(changes.map((c) => c.operation))].sort(),
  }
}

main().then(
  (summary) => {
    console.log(JSON.stringify(summary))
    process.exit(0)
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : err)
    process.exit(1)
  },
)
