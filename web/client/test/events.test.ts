import { describe, expect, it } from 'vitest'
import { EventTracker, HEALTH_KEY, KitError, MemoryStorage } from '../src/index'
import { clientAs, unique } from './helpers'

// `kit serve` serves the events add-on's routes only when it installs the
// add-on; the tests that need them skip with a message when it does not.
async function eventsServed(): Promise<boolean> {
  const err = await clientAs('ann').team('acme').events({ pageSize: 1 }).then(() => undefined, (e: unknown) => e)
  return !(err instanceof KitError && err.status === 404 && err.message === 'collection not found')
}

function silentConsole<T>(fn: () => Promise<T>): Promise<T> {
  const original = console.error
  console.error = () => {}
  return fn().finally(() => {
    console.error = original
  })
}

describe('event tracker', () => {
  it('counts every attempt and every failure in the health record kept under kit-events-health', async () => {
    const storage = new MemoryStorage()
    const tracker = new EventTracker(clientAs('ann'), { errorHandling: { mode: 'silent', logToConsole: false }, storage })
    expect(tracker.health()).toEqual({ total: 0, failed: 0, lastError: null, lastErrorTime: null })

    const before = Date.now()
    const got = await tracker.track({ teamId: 'no-such-team', operation: 'update', collection: 'shopProducts', itemId: 'x' })
    expect(got).toEqual([])
    const h = tracker.health()
    expect(h.total).toBe(1)
    expect(h.failed).toBe(1)
    expect(h.lastError).toBe('team not found')
    expect(h.lastErrorTime!.getTime()).toBeGreaterThanOrEqual(before)
    expect(JSON.parse(storage.getItem(HEALTH_KEY)!)).toMatchObject({ total: 1, failed: 1 })
  })

  it('throw mode rejects with the KitError', async () => {
    const tracker = new EventTracker(clientAs('ann'), { errorHandling: { mode: 'throw', logToConsole: false } })
    const err = await tracker.track({ teamId: 'no-such-team', operation: 'create', collection: 'shopProducts', itemId: 'x' }).catch((e: unknown) => e)
    expect((err as KitError).status).toBe(404)
    expect(tracker.health().failed).toBe(1)
  })

  it('toast mode calls onToast with the failure and resolves', async () => {
    const toasts: string[] = []
    const tracker = new EventTracker(clientAs('ann'), { errorHandling: { logToConsole: false }, onToast: (m) => toasts.push(m) })
    await tracker.track({ teamId: 'no-such-team', operation: 'create', collection: 'shopProducts', itemId: 'x' })
    expect(toasts).toEqual(['Event tracking failed: team not found'])
  })

  it('logs a failure to the console unless logToConsole is false', async () => {
    const logged: string[] = []
    const original = console.error
    console.error = (m: string) => logged.push(m)
    try {
      await new EventTracker(clientAs('ann'), { errorHandling: { mode: 'silent' } }).track({ teamId: 'no-such-team', operation: 'delete', collection: 'shopProducts', itemId: 'x' })
      await new EventTracker(clientAs('ann'), { errorHandling: { mode: 'silent', logToConsole: false } }).track({ teamId: 'no-such-team', operation: 'delete', collection: 'shopProducts', itemId: 'x' })
    } finally {
      console.error = original
    }
    expect(logged).toEqual(['[kit-events] tracking delete of shopProducts failed: team not found'])
  })

  it('trackInBackground never rejects, even in throw mode, and still counts the failure', async () => {
    const tracker = new EventTracker(clientAs('ann'), { errorHandling: { mode: 'throw' } })
    await silentConsole(async () => {
      expect(tracker.trackInBackground({ teamId: 'no-such-team', operation: 'create', collection: 'shopProducts', itemId: 'x' })).toBeUndefined()
      await expect.poll(() => tracker.health().failed).toBe(1)
    })
  })

  it('a disabled tracker sends nothing and counts nothing', async () => {
    const tracker = new EventTracker(clientAs('ann'), { enabled: false })
    expect(await tracker.track({ teamId: 'no-such-team', operation: 'create', collection: 'shopProducts', itemId: 'x' })).toEqual([])
    expect(tracker.health().total).toBe(0)
  })

  it('records a manual event that the events list then shows (when kit serve installs the events add-on)', async (ctx) => {
    if (!(await eventsServed())) ctx.skip('kit serve does not install the events add-on: /kit-events answers 404')
    const kit = clientAs('ann')
    const product = await kit.team('acme').collection('shopProducts').create({ title: unique('tracked'), price: '1' })
    const tracker = new EventTracker(kit, { errorHandling: { mode: 'throw' } })
    await tracker.track({ teamId: 'acme', operation: 'update', collection: 'shopProducts', itemId: product.id, updates: { stock: 3 }, beforeData: { stock: 0 } })
    expect(tracker.health()).toMatchObject({ total: 1, failed: 0 })
    const list = await kit.team('acme').events({ itemId: product.id, operation: 'update' })
    expect(list.items.length).toBeGreaterThan(0)
    expect(list.items[0]).toMatchObject({ collectionName: 'shopProducts', itemId: product.id })
  })
})
