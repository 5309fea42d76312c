import { describe, expect, it } from 'vitest'
import { filter, KitClient, KitError } from '../src/index'
import { clientAs, server, unique } from './helpers'

describe('list', () => {
  it('pages, searches, sorts and filters with the filter builder', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const tag = unique('list')
    for (const [title, price] of [
      ['Lamp', '19.90'],
      ['Desk', '120.00'],
      ['Chair', '45.50'],
    ] as const) {
      await products.create({ title: `${tag} ${title}`, price, sku: `${tag}-${title}` })
    }

    const all = await products.list({ search: tag, sort: '-price', pageSize: 2 })
    expect(all.items.map((p) => p.title)).toEqual([`${tag} Desk`, `${tag} Chair`])
    expect(all.pagination).toMatchObject({ currentPage: 1, pageSize: 2, totalItems: 3, totalPages: 2 })

    const page2 = await products.list({ search: tag, sort: ['-price'], pageSize: 2, page: 2 })
    expect(page2.items.map((p) => p.title)).toEqual([`${tag} Lamp`])

    const cheap = await products.list({ search: tag, sort: 'price', filter: filter().gte('price', '20').lt('price', '100') })
    expect(cheap.items.map((p) => p.title)).toEqual([`${tag} Chair`])

    const bySku = await products.list({ filter: { sku: { in: [`${tag}-Lamp`, `${tag}-Desk`] } }, sort: 'title' })
    expect(bySku.items.map((p) => p.title)).toEqual([`${tag} Desk`, `${tag} Lamp`])
  })

  it('reads several records by ids in the order asked, leaving out unknown ids', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const a = await products.create({ title: unique('a'), price: '1' })
    const b = await products.create({ title: unique('b'), price: '2' })
    const got = await products.items([b.id, '00000000-0000-7000-8000-000000000000', a.id])
    expect(got.map((r) => r.id)).toEqual([b.id, a.id])
  })
})

describe('item', () => {
  it('uses GET /{id} for a restful collection', async () => {
    const s = server()
    const requests: string[] = []
    const kit = new KitClient({
      baseURL: s.baseURL,
      token: s.tokens.ann,
      fetch: (input, init) => {
        requests.push(`${init?.method ?? 'GET'} ${String(input).replace(s.baseURL, '')}`)
        return fetch(input, init)
      },
    })
    const products = kit.team('acme').collection('shopProducts')
    const created = await products.create({ title: unique('restful'), price: '3.00' })
    const got = await products.item(created.id)
    expect(got).toEqual(created)
    expect(requests.at(-1)).toBe(`GET /api/teams/acme/shop-products/${created.id}`)
  })

  it('uses ?ids=<id> and the first element for a query collection', async () => {
    const s = server()
    const requests: string[] = []
    const kit = new KitClient({
      baseURL: s.baseURL,
      token: s.tokens.ann,
      fetch: (input, init) => {
        requests.push(`${init?.method ?? 'GET'} ${String(input).replace(s.baseURL, '')}`)
        return fetch(input, init)
      },
    })
    const categories = kit.team('acme').collection('shopCategories')
    const created = await categories.create({ title: unique('query') })
    const got = await categories.item(created.id)
    expect(got.id).toBe(created.id)
    expect(got.title).toBe(created.title)
    expect(requests.at(-1)).toBe(`GET /api/teams/acme/shop-categories?ids=${created.id}`)
  })

  it('answers a 404 KitError for a query-strategy id that matches nothing', async () => {
    const categories = clientAs('ann').team('acme').collection('shopCategories')
    const err = await categories.item('00000000-0000-7000-8000-000000000000').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KitError)
    expect((err as KitError).status).toBe(404)
  })

  it('does not show a record of another team: 404 as for a missing one', async () => {
    const mine = await clientAs('ann').team('acme').collection('shopProducts').create({ title: unique('secret'), price: '1' })
    const err = await clientAs('gus').team('globex').collection('shopProducts').item(mine.id).catch((e: unknown) => e)
    expect((err as KitError).status).toBe(404)
  })
})

describe('super-admin item', () => {
  it('reads any team record through /api/super-admin/<collection>/<id>', async () => {
    const created = await clientAs('ann').team('acme').collection('shopProducts').create({ title: unique('admin'), price: '7' })
    const got = await clientAs('root').superAdmin().item('shopProducts', created.id)
    expect(got.id).toBe(created.id)
    expect(got.teamId).toBe(server().teams.acme)
  })

  it('refuses a user whose global role is not admin with a 403', async () => {
    const created = await clientAs('ann').team('acme').collection('shopProducts').create({ title: unique('admin'), price: '7' })
    const err = await clientAs('ann').superAdmin().item('shopProducts', created.id).catch((e: unknown) => e)
    expect((err as KitError).status).toBe(403)
  })
})

describe('create, update and delete', () => {
  it('creates a record and answers it as stored, with the server-owned fields', async () => {
    const s = server()
    const rec = await clientAs('bea').team('acme').collection('shopProducts').create({ title: unique('new'), price: 9.9 })
    expect(rec.price).toBe('9.90')
    expect(rec.teamId).toBe(s.teams.acme)
    expect(rec.owner).toBe(s.users.bea)
    expect(rec.id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('updates only the given fields', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const rec = await products.create({ title: unique('upd'), price: '5', stock: 1 })
    const updated = await products.update(rec.id, { stock: 4 })
    expect(updated.stock).toBe(4)
    expect(updated.title).toBe(rec.title)
    expect((await products.item(rec.id)).stock).toBe(4)
  })

  it('sends an If-Match header with an update when asked', async () => {
    const s = server()
    const sent: Array<string | null> = []
    const kit = new KitClient({
      baseURL: s.baseURL,
      token: s.tokens.ann,
      fetch: (input, init) => {
        sent.push(new Headers(init?.headers).get('If-Match'))
        return fetch(input, init)
      },
    })
    const products = kit.team('acme').collection('shopProducts')
    const { item: rec, etag } = await products.createWithETag({ title: unique('etag'), price: '5' })
    await products.update(rec.id, { stock: 2 }, { ifMatch: etag })
    expect(sent.at(-1)).toBe(etag)
  })

  it('deletes one record with DELETE /{id}', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const rec = await products.create({ title: unique('del'), price: '5' })
    await products.delete(rec.id)
    const err = await products.item(rec.id).catch((e: unknown) => e)
    expect((err as KitError).status).toBe(404)
  })

  it('deletes several records with one DELETE ?ids=a,b', async () => {
    const s = server()
    const requests: string[] = []
    const kit = new KitClient({
      baseURL: s.baseURL,
      token: s.tokens.ann,
      fetch: (input, init) => {
        requests.push(`${init?.method ?? 'GET'} ${decodeURIComponent(String(input).replace(s.baseURL, ''))}`)
        return fetch(input, init)
      },
    })
    const products = kit.team('acme').collection('shopProducts')
    const a = await products.create({ title: unique('bulk'), price: '5' })
    const b = await products.create({ title: unique('bulk'), price: '5' })
    await products.delete([a.id, b.id])
    expect(requests.at(-1)).toBe(`DELETE /api/teams/acme/shop-products?ids=${a.id},${b.id}`)
    expect(await products.items([a.id, b.id])).toEqual([])
  })

  it('deletes none of several records when one is another team\'s, and rejects with 404 as its single delete would', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const a = await products.create({ title: unique('all-or-nothing'), price: '5' })
    const b = await products.create({ title: unique('all-or-nothing'), price: '5' })
    const foreign = await clientAs('gus').team('globex').collection('shopProducts').create({ title: unique('globex'), price: '5' })
    const err = await products.delete([a.id, foreign.id, b.id]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KitError)
    expect((err as KitError).status).toBe(404)
    expect((err as KitError).message).toBe('record not found')
    expect((await products.items([a.id, b.id])).map((r) => r.id)).toEqual([a.id, b.id])
  })

  it('deletes none of several tree nodes when one keeps a child, and rejects with 409', async () => {
    const categories = clientAs('ann').team('acme').collection('shopCategories')
    const parent = await categories.create({ title: unique('parent') })
    const child = await categories.create({ title: unique('child'), parentId: parent.id })
    const other = await categories.create({ title: unique('other') })
    const err = await categories.delete([other.id, parent.id]).catch((e: unknown) => e)
    expect((err as KitError).status).toBe(409)
    expect((await categories.items([other.id, parent.id, child.id])).map((r) => r.id)).toEqual([other.id, parent.id, child.id])
    await categories.delete([parent.id, child.id, other.id])
    expect(await categories.items([other.id, parent.id, child.id])).toEqual([])
  })
})

describe('errors', () => {
  it('rejects with a KitError carrying status, statusText, message and data', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const err = await products.create({ price: '1' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KitError)
    const k = err as KitError
    expect(k.status).toBe(400)
    expect(k.statusText).toBe('Bad Request')
    expect(k.message).not.toBe('')
    expect(k.data?.fields).toHaveProperty('title')
  })

  it.each([
    { name: 'a missing token is a 401', user: undefined, team: 'acme', status: 401 },
    { name: 'a team the caller is not a member of is a 403', user: 'gus' as const, team: 'acme', status: 403 },
    { name: 'an unknown team is a 404', user: 'ann' as const, team: 'no-such-team', status: 404 },
  ])('$name', async ({ user, team, status }) => {
    const kit = user ? clientAs(user) : new KitClient({ baseURL: server().baseURL })
    const err = await kit.team(team).collection('shopProducts').list().catch((e: unknown) => e)
    expect((err as KitError).status).toBe(status)
  })

  it('names the bad list parameter in data.param', async () => {
    const err = await clientAs('ann').team('acme').collection('shopProducts').list({ pageSize: 1000 }).catch((e: unknown) => e)
    expect((err as KitError).status).toBe(400)
    expect((err as KitError).data?.param).toBe('pageSize')
  })

  it('maps a unique violation to a 409', async () => {
    const categories = clientAs('ann').team('acme').collection('shopCategories')
    const title = unique('dup')
    await categories.create({ title })
    const err = await categories.create({ title }).catch((e: unknown) => e)
    expect((err as KitError).status).toBe(409)
  })

  it('reads a plain-text error answer (outside kit) into a KitError with the text as message', async () => {
    const kit = new KitClient({ baseURL: server().baseURL, prefix: '/' })
    const err = await kit.request('GET', 'no-such-route').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KitError)
    expect((err as KitError).status).toBe(404)
    expect((err as KitError).message).toBe('404 page not found')
  })

  it('turns an unreachable server into a KitError of status 0', async () => {
    const kit = new KitClient({ baseURL: 'http://127.0.0.1:1' })
    const err = await kit.team('acme').collection('shopProducts').list().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KitError)
    expect((err as KitError).status).toBe(0)
    expect((err as KitError).statusText).toBe('Network Error')
  })
})
