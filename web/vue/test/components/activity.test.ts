// @vitest-environment happy-dom
import type { KitEvent } from '@collectionkit/client'
import { mount } from '@vue/test-utils'
import { describe, expect, inject, it } from 'vitest'
import { KitActivityChanges, KitActivityEventDetail, KitActivityEventRow, KitActivityFilters, KitActivityLog, KitActivityTimeline } from '../../src/index'
import { unique } from '../harness'
import { clientAs, mountWithKit, waitFor } from './mount'

const event = (over: Partial<KitEvent> = {}): KitEvent => ({
  id: 'e1',
  timestamp: new Date().toISOString(),
  operation: 'update',
  collectionName: 'shopProducts',
  itemId: 'p1',
  userId: 'u1',
  userName: 'Ann',
  changes: [
    { fieldName: 'title', oldValue: '"Lamp"', newValue: '"Desk lamp"' },
    { fieldName: 'stock', oldValue: null, newValue: '3' },
  ],
  ...over,
})

describe('KitActivityLog', () => {
  it('lists the team events of a collection, 50 a page by default', async () => {
    const tag = unique('act')
    const p = await clientAs('ann').team('acme').collection('shopProducts').create({ title: `${tag} Lamp`, price: '2' })
    const w = mountWithKit(KitActivityLog, { props: { collection: 'shopProducts' } })
    await waitFor(() => expect(w.find(`[data-kit-event] [data-kit-event-open]`).exists()).toBe(true))
    const first = w.find('[data-kit-event]')
    await waitFor(() => expect(first.find('[data-kit-event-open]').text()).toBe(`Ann created Product “${tag} Lamp”`))
    expect(first.attributes('data-kit-operation')).toBe('create')
    expect(w.findAll('[data-kit-event]').length).toBeLessThanOrEqual(50)
    expect(w.findAll('[data-kit-event-open]').every((e) => / Product “/.test(e.text()))).toBe(true)
    expect(w.find('nav select').element).toHaveProperty('value', '50')
  })

  it('narrows to one user with userId, and shows emptyMessage when nothing matches', async () => {
    const s = inject('kit')
    await clientAs('bea').team('acme').collection('shopProducts').create({ title: unique('bea'), price: '1' })
    const w = mountWithKit(KitActivityLog, { props: { userId: s.users.bea } })
    await waitFor(() => expect(w.findAll('[data-kit-event]').length).toBeGreaterThan(0))
    expect(new Set(w.findAll('[data-kit-event-user]').map((n) => n.text()))).toEqual(new Set(['Bea']))

    const empty = mountWithKit(KitActivityLog, { props: { userId: s.users.gus } })
    await waitFor(() => expect(empty.find('[data-kit-empty]').text()).toBe('No activity found'))
    const custom = mountWithKit(KitActivityLog, { props: { userId: s.users.gus, emptyMessage: 'Nothing yet' } })
    await waitFor(() => expect(custom.find('[data-kit-empty]').text()).toBe('Nothing yet'))
  })

  it("the filter offers the registry's collections and the team's members, and filters by them", async () => {
    const s = inject('kit')
    const w = mountWithKit(KitActivityLog, {})
    await waitFor(() => expect(w.findAll('[data-kit-filter="userId"] option').map((o) => o.text())).toEqual(['Everyone', 'Ann', 'Bea']))
    await waitFor(() => expect(w.findAll('[data-kit-filter="collectionName"] option').map((o) => o.text())).toEqual(expect.arrayContaining(['Products', 'Categories', 'Posts'])))
    await w.find('[data-kit-filter="userId"]').setValue(s.users.bea)
    await w.find('[data-kit-filter="operation"]').setValue('create')
    await waitFor(() => expect(w.findAll('[data-kit-event]').length).toBeGreaterThan(0))
    await waitFor(() => expect(new Set(w.findAll('[data-kit-event]').map((e) => `${e.attributes('data-kit-operation')} ${e.find('[data-kit-event-user]').text()}`))).toEqual(new Set(['create Bea'])))
  })

  it('showFilters and showPagination false hide the filter and the pages', async () => {
    const w = mountWithKit(KitActivityLog, { props: { showFilters: false, showPagination: false, pageSize: 5 } })
    await waitFor(() => expect(w.findAll('[data-kit-event]').length).toBeGreaterThan(0))
    expect(w.findAll('[data-kit-event]').length).toBeLessThanOrEqual(5)
    expect(w.find('[data-kit-activity-filters]').exists()).toBe(false)
    expect(w.find('nav[aria-label="Pagination"]').exists()).toBe(false)
  })

  it('a click on an event opens its detail with the changes diff', async () => {
    const tag = unique('diff')
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const p = await products.create({ title: `${tag} A`, price: '1' })
    await products.update(p.id, { title: `${tag} B` })
    const w = mountWithKit(KitActivityLog, { props: { collection: 'shopProducts', itemId: p.id } }, {})
    await waitFor(() => expect(w.findAll('[data-kit-event]').map((e) => e.attributes('data-kit-operation'))).toEqual(['update', 'create']))
    await w.find('[data-kit-event-open]').trigger('click')
    const detail = w.find('[data-kit-event-detail]')
    expect(detail.text()).toContain(p.id)
    await waitFor(() => expect(w.find('[data-kit-event-detail]').text()).toContain(`${tag} B`))
    const row = w.find('[aria-modal] [data-kit-change="title"]')
    expect(row.find('[data-kit-old]').text()).toBe(`${tag} A`)
    expect(row.find('[data-kit-new]').text()).toBe(`${tag} B`)
  })
  it('is live: a write through the client to a collection it shows reloads it', async () => {
    const tag = unique('live')
    const w = mountWithKit(KitActivityLog, { props: { collection: 'shopProducts' } })
    await waitFor(() => expect(w.find('[data-kit-timeline]').attributes('aria-busy')).toBe('false'))
    const p = await w.kit.client.team('acme').collection('shopProducts').create({ title: `${tag} Lamp`, price: '2' })
    await waitFor(() => expect(w.find('[data-kit-event]').text()).toContain(`Product “${tag} Lamp”`))
  })

  it('v-model:filter gives the starting filter and receives the user changes', async () => {
    const w = mountWithKit(KitActivityLog, { props: { filter: { operation: 'update' } } })
    await waitFor(() => expect(w.findAll('[data-kit-event]').length).toBeGreaterThan(0))
    expect(w.find('[data-kit-filter="operation"]').element).toHaveProperty('value', 'update')
    expect(w.findAll('[data-kit-event]').every((e) => e.attributes('data-kit-operation') === 'update')).toBe(true)
    await w.find('[data-kit-filter="operation"]').setValue('create')
    expect(w.emitted('update:filter')).toEqual([[{ operation: 'create' }]])
  })
})

describe('KitActivityTimeline', () => {
  it('groups events by day, newest day first as given', () => {
    const now = new Date()
    const yesterday = new Date(now.getTime() - 24 * 3600 * 1000)
    const old = new Date(2026, 0, 5, 12, 0, 0)
    const w = mount(KitActivityTimeline, {
      props: {
        events: [event({ id: '1', timestamp: now.toISOString() }), event({ id: '2', timestamp: now.toISOString() }), event({ id: '3', timestamp: yesterday.toISOString() }), event({ id: '4', timestamp: old.toISOString() })],
      },
    })
    const days = w.findAll('[data-kit-day]')
    expect(days.map((d) => d.find('h2').text())).toEqual(['Today', 'Yesterday', old.toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' })])
    expect(days.map((d) => d.findAll('[data-kit-event]').map((e) => e.attributes('data-kit-event')))).toEqual([['1', '2'], ['3'], ['4']])
  })

  it('emits event-click with the event', async () => {
    const e = event()
    const w = mount(KitActivityTimeline, { props: { events: [e] } })
    await w.find('[data-kit-event-open]').trigger('click')
    expect(w.emitted('event-click')).toEqual([[e]])
  })

  it("shows the empty message ('No activity found' by default) and a skeleton while loading", () => {
    expect(mount(KitActivityTimeline).find('[data-kit-empty]').text()).toBe('No activity found')
    expect(mount(KitActivityTimeline, { props: { emptyMessage: 'Quiet' } }).find('[data-kit-empty]').text()).toBe('Quiet')
    const loading = mount(KitActivityTimeline, { props: { loading: true } })
    expect(loading.find('[data-kit-skeleton]').exists()).toBe(true)
    expect(loading.find('[data-kit-empty]').exists()).toBe(false)
  })
})

describe('KitActivityEventRow', () => {
  it('is collapsed by default and shows the changes when expanded', async () => {
    const w = mount(KitActivityEventRow, { props: { event: event() } })
    expect(w.text()).toContain('Ann updated')
    expect(w.find('[data-kit-changes]').exists()).toBe(false)
    await w.find('[data-kit-event-toggle]').trigger('click')
    expect(w.find('[data-kit-changes]').exists()).toBe(true)
    expect(w.find('[data-kit-event-toggle]').attributes('aria-expanded')).toBe('true')
    const open = mount(KitActivityEventRow, { props: { event: event(), expanded: true } })
    expect(open.findAll('[data-kit-change]').map((c) => c.attributes('data-kit-change'))).toEqual(['title', 'stock'])
  })
})

describe('KitActivityEventRow says what the trash did', () => {
  it.each([
    ['a delete into the trash', { operation: 'delete', metadata: { trashed: true } }, 'Ann moved Product “p1” to the trash', 'Delete'],
    ['a restore', { operation: 'restore' }, 'Ann restored Product “p1” from the trash', 'Restore'],
    ['a purge', { operation: 'purge' }, 'Ann deleted Product “p1” for good', 'Delete for good'],
    ['a delete for good at once', { operation: 'delete' }, 'Ann deleted Product “p1”', 'Delete'],
  ])('words %s', (_, over, sentence, badge) => {
    const w = mount(KitActivityEventRow, { props: { event: event({ ...over, changes: [] }) } })
    expect(w.find('[data-kit-event-open]').text()).toBe(sentence)
    expect(w.find('[data-kit-operation] span').text()).toBe(badge)
  })
})

describe('KitActivityFilters', () => {
  it("offers every operation kit tracks (create, update, delete, move, reorder, restore, purge) and emits the one chosen", async () => {
    const w = mount(KitActivityFilters, { props: { modelValue: {} } })
    expect(w.findAll('[data-kit-filter="operation"] option').map((o) => o.attributes('value'))).toEqual(['', 'create', 'update', 'delete', 'move', 'reorder', 'restore', 'purge'])
    expect(w.findAll('[data-kit-filter="operation"] option').map((o) => o.text()).slice(6)).toEqual(['Restore', 'Delete for good'])
    await w.find('[data-kit-filter="operation"]').setValue('move')
    expect(w.emitted('update:modelValue')).toEqual([[{ operation: 'move' }]])
  })
  it('offers the collections and users given, and emits the filter state', async () => {
    const w = mount(KitActivityFilters, { props: { modelValue: {}, collections: ['shopProducts', 'blogPosts'], users: [{ id: 'u1', name: 'Ann' }] } })
    expect(w.findAll('[data-kit-filter="collectionName"] option').map((o) => o.text())).toEqual(['All collections', 'shopProducts', 'blogPosts'])
    expect(w.findAll('[data-kit-filter="userId"] option').map((o) => o.text())).toEqual(['Everyone', 'Ann'])
    await w.find('[data-kit-filter="collectionName"]').setValue('blogPosts')
    await w.setProps({ modelValue: { collectionName: 'blogPosts' } })
    await w.find('[data-kit-filter="operation"]').setValue('delete')
    await w.setProps({ modelValue: { collectionName: 'blogPosts', operation: 'delete' } })
    await w.find('[data-kit-filter="collectionName"]').setValue('')
    expect(w.emitted('update:modelValue')).toEqual([[{ collectionName: 'blogPosts' }], [{ collectionName: 'blogPosts', operation: 'delete' }], [{ operation: 'delete' }]])
  })
  it('offers each collection by its name for people, with its key beside it when two names read the same', async () => {
    const configs = { shopProducts: { name: 'products', displayName: 'Catalogue' }, blogPosts: { name: 'posts' }, shopItems: { name: 'items' }, blogItems: { name: 'items' } }
    const w = mountWithKit(KitActivityFilters, { props: { modelValue: {}, collections: Object.keys(configs) } }, { collections: configs })
    expect(w.findAll('[data-kit-filter="collectionName"] option').map((o) => o.text())).toEqual(['All collections', 'Catalogue', 'Posts', 'Items (shopItems)', 'Items (blogItems)'])
    expect(w.findAll('[data-kit-filter="collectionName"] option').map((o) => o.attributes('value'))).toEqual(['', 'shopProducts', 'blogPosts', 'shopItems', 'blogItems'])
  })
})

describe('KitActivityEventDetail', () => {
  it('opens with v-model and closes with update:modelValue false', async () => {
    const w = mount(KitActivityEventDetail, { props: { modelValue: true, event: event({ metadata: { correlationId: 'c-1' } }) }, attachTo: document.body })
    expect(w.find('[aria-modal]').exists()).toBe(true)
    expect(w.find('[data-kit-event-detail]').text()).toContain('c-1')
    await w.find('[data-kit-close]').trigger('click')
    expect(w.emitted('update:modelValue')).toEqual([[false]])
    await w.setProps({ modelValue: false })
    expect(w.find('[aria-modal]').exists()).toBe(false)
  })
})

describe('KitActivityChanges', () => {
  it('shows the old and the new value of each field', () => {
    const w = mount(KitActivityChanges, {
      props: {
        operation: 'update',
        changes: [
          { fieldName: 'title', oldValue: '"Lamp"', newValue: '"Desk lamp"' },
          { fieldName: 'stock', oldValue: null, newValue: '3' },
          { fieldName: 'dimensions', oldValue: '{"w":1}', newValue: null },
        ],
      },
    })
    expect(w.findAll('tbody tr').map((r) => [r.find('th').text(), r.find('[data-kit-old]').text(), r.find('[data-kit-new]').text()])).toEqual([
      ['title', 'Lamp', 'Desk lamp'],
      ['stock', '—', '3'],
      ['dimensions', '{"w":1}', '—'],
    ])
    expect(w.findAll('thead th').map((t) => t.text())).toEqual(['Field', 'Old value', 'New value'])
  })
})
