import { describe, expect, it } from 'vitest'
import { KitError, importRejections, revertConflicts, type KitRecord, type Mutation } from '../src/index'
import { clientAs, unique } from './helpers'

/** refusal awaits p and returns the KitError it rejects with. */
async function refusal(p: Promise<unknown>): Promise<KitError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(KitError)
  return err as KitError
}

describe('trash of a softDelete collection', () => {
  it('lists a deleted record in the trash and restores it with the same id', async () => {
    const notes = clientAs('ann').team('acme').collection('testNotes')
    const body = unique('trashed')
    const rec = await notes.create({ body })
    await notes.delete(rec.id)
    expect((await refusal(notes.item(rec.id, { force: true }))).status).toBe(404)
    const trash = await notes.trash({ pageSize: 100 })
    const entry = trash.items.find((e) => e.id === rec.id)
    expect(entry?.record.body, 'the trashed record').toBe(body)
    expect(entry?.deletedAt).toMatch(/^\d{4}-\d\d-\d\dT/)
    const restored = await notes.restore(rec.id)
    expect(restored.id).toBe(rec.id)
    expect((await notes.item(rec.id, { force: true })).body).toBe(body)
    expect((await notes.trash({ pageSize: 100 })).items.some((e) => e.id === rec.id)).toBe(false)
  })

  it('purges a trashed record for good and tells the listeners', async () => {
    const kit = clientAs('ann')
    const seen: Mutation[] = []
    kit.onMutation((m) => seen.push(m))
    const notes = kit.team('acme').collection('testNotes')
    const rec = await notes.create({ body: unique('purged') })
    await notes.delete(rec.id)
    await notes.purge(rec.id)
    expect((await notes.trash({ pageSize: 100 })).items.some((e) => e.id === rec.id)).toBe(false)
    expect((await refusal(notes.restore(rec.id))).status).toBe(404)
    expect(seen.map((m) => m.operation)).toEqual(['create', 'delete', 'purge'])
  })

  it('answers 404 for the trash of a collection without softDelete', async () => {
    const err = await refusal(clientAs('ann').team('acme').collection('shopProducts').trash())
    expect(err.status).toBe(404)
  })

  it('answers 404 for a record of another team', async () => {
    const rec = await clientAs('ann').team('acme').collection('testNotes').create({ body: unique('acme') })
    await clientAs('ann').team('acme').collection('testNotes').delete(rec.id)
    const gus = clientAs('gus').team('globex').collection('testNotes')
    expect((await refusal(gus.restore(rec.id))).status).toBe(404)
    expect((await refusal(gus.purge(rec.id))).status).toBe(404)
  })
})

describe('export', () => {
  it('writes a CSV whose first line is the header and whose rows follow the search and sort', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const tag = unique('exp').replace(/\W/g, '')
    await products.create({ title: `${tag} b`, price: '2' })
    await products.create({ title: `${tag} a`, price: '1' })
    const res = await products.export('csv', { search: tag, sort: 'title' })
    expect(res.headers.get('Content-Disposition')).toContain('.csv')
    const lines = (await res.text()).trim().split(/\r?\n/)
    expect(lines[0]!.split(',').slice(0, 2)).toEqual(['id', 'teamId'])
    expect(lines[0]).toContain('title')
    expect(lines.length).toBe(3)
    expect(lines[1]).toContain(`${tag} a`)
    expect(lines[2]).toContain(`${tag} b`)
  })

  it('writes JSON as an array of the records', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const tag = unique('json').replace(/\W/g, '')
    const rec = await products.create({ title: tag, price: '3' })
    const items = (await (await products.export('json', { search: tag })).json()) as KitRecord[]
    expect(items.map((r) => r.id)).toEqual([rec.id])
  })

  it('refuses a page parameter with a 400 naming it', async () => {
    const err = await refusal(clientAs('ann').team('acme').collection('shopProducts').export('csv', { page: 2 }))
    expect(err.status).toBe(400)
    expect(err.message).toContain('page')
  })
})

describe('import', () => {
  it('creates every row of a CSV and answers how many', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const tag = unique('imp').replace(/\W/g, '')
    const res = await products.import(`title,price\n${tag} one,1.50\n${tag} two,2\n`, 'csv')
    expect(res.imported).toBe(2)
    expect(res.correlationId).not.toBe('')
    expect((await products.list({ search: tag }, { force: true })).items.length).toBe(2)
  })

  it('refuses a file with a bad value, lists the row, and writes nothing', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const tag = unique('bad').replace(/\W/g, '')
    const err = await refusal(products.import(`title,price\n${tag} ok,1\n${tag} bad,not a number\n`, 'csv'))
    expect(err.status).toBe(400)
    const rows = importRejections(err)
    expect(rows.length).toBe(1)
    expect(rows[0]).toMatchObject({ line: 3, row: 2, field: 'price' })
    expect((await products.list({ search: tag }, { force: true })).items.length).toBe(0)
  })

  it('refuses an unknown column as row 0', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const rows = importRejections(await refusal(products.import('title,price,colour\nx,1,red\n', 'csv')))
    expect(rows[0]?.row).toBe(0)
  })
})

describe('revert of an update event', () => {
  async function updateEvent(title: string) {
    const team = clientAs('ann').team('acme')
    const products = team.collection('shopProducts')
    const rec = await products.create({ title, price: '5' })
    await products.update(rec.id, { title: `${title} changed` })
    const events = await team.events({ itemId: rec.id, operation: 'update' })
    expect(events.items.length).toBe(1)
    return { team, products, rec, event: events.items[0]! }
  }

  it('writes the old values back', async () => {
    const title = unique('revert')
    const { team, products, rec, event } = await updateEvent(title)
    const back = await team.revertEvent(event)
    expect(back.title).toBe(title)
    expect((await products.item(rec.id, { force: true })).title).toBe(title)
  })

  it('refuses with a 409 naming a field changed since, and writes it with force', async () => {
    const title = unique('conflict')
    const { team, products, rec, event } = await updateEvent(title)
    await products.update(rec.id, { title: 'later' })
    const err = await refusal(team.revertEvent(event))
    expect(err.status).toBe(409)
    expect(revertConflicts(err)).toEqual({ title: 'changed since the event' })
    expect((await products.item(rec.id, { force: true })).title).toBe('later')
    expect((await team.revertEvent(event, { force: true })).title).toBe(title)
  })

  it('answers 404 for an event of another team', async () => {
    const { event } = await updateEvent(unique('other'))
    expect((await refusal(clientAs('gus').team('globex').revertEvent(event.id!))).status).toBe(404)
  })
})

describe('backups of a super-admin', () => {
  it('makes a backup, lists it and downloads the archive', async () => {
    const root = clientAs('root').superAdmin()
    const made = await root.createBackup()
    expect(made.name).toMatch(/^kit-.*\.tar$/)
    expect((await root.backups()).map((b) => b.name)).toContain(made.name)
    const res = await root.downloadBackup(made.name)
    const bytes = new Uint8Array(await res.arrayBuffer())
    expect(bytes.length, 'the archive length').toBe(made.size)
    expect(new TextDecoder().decode(bytes.slice(0, 13)), 'the first entry').toBe('manifest.json')
  })

  it('refuses a user who is no super-admin with 403', async () => {
    expect((await refusal(clientAs('ann').superAdmin().backups())).status).toBe(403)
    expect((await refusal(clientAs('ann').superAdmin().createBackup())).status).toBe(403)
  })
})
