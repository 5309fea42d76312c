import { describe, expect, it } from 'vitest'
import { KitError, MAX_BUSY_WAIT_MS } from '../src/index'
import { retryAfterMs } from '../src/client'
import { clientAs, unique } from './helpers'

/**
 * refusing returns a fetch that answers the next `count` requests whose
 * method is `method` with kit's busy answer (503, its JSON body and
 * `Retry-After: after`), as kit does when its scan slots are full, and
 * sends every other request to the real server; `calls` counts the
 * requests of that method.
 */
function refusing(method: string, count: number, after = '1') {
  const state = { calls: 0, left: count }
  const impl: typeof fetch = async (input, init) => {
    if ((init?.method ?? 'GET') !== method || String(input).endsWith('/kit/collections')) return fetch(input, init)
    state.calls++
    if (state.left-- > 0) {
      const body = { status: 503, statusText: 'Service Unavailable', message: 'too many expensive lists (searches, unindexed sorts, scanning filters) are running; retry shortly' }
      return new Response(JSON.stringify(body), { status: 503, headers: { 'Content-Type': 'application/json', 'Retry-After': after } })
    }
    return fetch(input, init)
  }
  return { state, impl }
}

describe('busy answers', () => {
  it('a list answered busy twice is asked again after each Retry-After and resolves', async () => {
    const title = unique('busy list')
    await clientAs('ann').team('acme').collection('shopProducts').create({ title, price: '1.00' })
    const f = refusing('GET', 2)
    const products = clientAs('ann', { fetch: f.impl }).team('acme').collection('shopProducts')
    const started = Date.now()
    const page = await products.list({ search: title })
    expect(page.items.map((p) => p.title)).toEqual([title])
    expect(f.state.calls).toBe(3)
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000)
  })

  it('a list rejects with the busy answer once its retries are spent', async () => {
    const f = refusing('GET', 3, '0')
    const products = clientAs('ann', { fetch: f.impl }).team('acme').collection('shopProducts')
    const err = await products.list().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KitError)
    expect((err as KitError).status).toBe(503)
    expect(f.state.calls).toBe(3)
  })

  it('busyRetries sets how many times, and 0 turns retrying off', async () => {
    const more = refusing('GET', 3, '0')
    await clientAs('ann', { fetch: more.impl, busyRetries: 3 }).team('acme').collection('shopProducts').list()
    expect(more.state.calls).toBe(4)
    const off = refusing('GET', 1, '0')
    const err = await clientAs('ann', { fetch: off.impl, busyRetries: 0 }).team('acme').collection('shopProducts').list().catch((e: unknown) => e)
    expect((err as KitError).status).toBe(503)
    expect(off.state.calls).toBe(1)
  })

  it('a create is never retried, and the refused create wrote nothing', async () => {
    const f = refusing('POST', 1, '0')
    const kit = clientAs('ann', { fetch: f.impl })
    const title = unique('busy create')
    const err = await kit.team('acme').collection('shopProducts').create({ title, price: '1.00' }).catch((e: unknown) => e)
    expect((err as KitError).status).toBe(503)
    expect(f.state.calls).toBe(1)
    const found = await clientAs('ann').team('acme').collection('shopProducts').list({ search: title })
    expect(found.pagination.totalItems).toBe(0)
  })

  it('a delete is retried: it is idempotent', async () => {
    const f = refusing('DELETE', 1, '0')
    const kit = clientAs('ann', { fetch: f.impl })
    const products = kit.team('acme').collection('shopProducts')
    const created = await products.create({ title: unique('busy delete'), price: '1.00' })
    await products.delete(created.id)
    expect(f.state.calls).toBe(2)
    const err = await clientAs('ann').team('acme').collection('shopProducts').item(created.id).catch((e: unknown) => e)
    expect((err as KitError).status).toBe(404)
  })

  it(`a Retry-After longer than MAX_BUSY_WAIT_MS (${MAX_BUSY_WAIT_MS} ms) rejects at once`, async () => {
    const f = refusing('GET', 1, '60')
    const started = Date.now()
    const err = await clientAs('ann', { fetch: f.impl }).team('acme').collection('shopProducts').list().catch((e: unknown) => e)
    expect((err as KitError).status).toBe(503)
    expect(f.state.calls).toBe(1)
    expect(Date.now() - started).toBeLessThan(MAX_BUSY_WAIT_MS)
  })

  it('an abort while waiting rejects with the abort and asks no more', async () => {
    const f = refusing('GET', 1, '5')
    const ctl = new AbortController()
    setTimeout(() => ctl.abort(new DOMException('stopped', 'AbortError')), 50)
    const err = await clientAs('ann', { fetch: f.impl }).team('acme').collection('shopProducts').list({}, { signal: ctl.signal }).catch((e: unknown) => e)
    expect((err as DOMException).name).toBe('AbortError')
    expect(f.state.calls).toBe(1)
  })
})

describe('retryAfterMs', () => {
  const now = Date.parse('Sun, 29 Nov 2026 12:00:00 GMT')
  it.each([
    ['delay-seconds are a wait', '1', 1000],
    ['spaces around them are ignored', ' 120 ', 120_000],
    ['an HTTP date is the time until it', 'Sun, 29 Nov 2026 12:00:30 GMT', 30_000],
    ['a date in the past is no wait', 'Sun, 29 Nov 2026 11:00:00 GMT', 0],
    ['no header is no retry', null, undefined],
    ['a negative number is no retry', '-1', undefined],
    ['a fraction is no retry', '1.5', undefined],
    ['anything else is no retry', 'soon', undefined],
  ])('%s', (_name, header, want) => {
    expect(retryAfterMs(header, now)).toBe(want)
  })
})
