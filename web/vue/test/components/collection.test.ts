// @vitest-environment happy-dom
import { flushPromises, mount } from '@vue/test-utils'
import Sortable from 'sortablejs'
import { describe, expect, it, vi } from 'vitest'
import { defineComponent, h } from 'vue'
import { isLayout, KitCard, KitCollection, resolveLayout, type LayoutType } from '../../src/index'
import { unique } from '../harness'
import { clientAs, mountWithKit, waitFor } from './mount'

const rows = [
  { id: 'a', title: 'Alpha', status: 'todo', parentId: null, order: 0 },
  { id: 'b', title: 'Beta', status: 'done', parentId: 'a', order: 0 },
  { id: 'c', title: 'Gamma', status: 'todo', parentId: null, order: 1 },
]
const columns = [{ accessorKey: 'title', header: 'Title' }]

function setWidth(width: number): void {
  ;(window as unknown as { happyDOM: { setViewport(v: { width: number }): void } }).happyDOM.setViewport({ width })
  window.dispatchEvent(new Event('resize'))
}

/** A card that shows which component rendered it and the layout it received. */
const namedCard = (name: string) =>
  defineComponent({
    name,
    props: { item: { type: Object, required: true }, layout: { type: String, required: true }, collection: String },
    setup: (p) => () => h('div', { class: 'card', 'data-name': name }, `${name}:${p.layout}:${String((p.item as { title: string }).title)}`),
  })

describe('KitCollection', () => {
  it('renders the layouts table, list, grid, tree and kanban', () => {
    const render = (layout: LayoutType) => mount(KitCollection, { props: { collection: 'tasks', rows, columns, layout, stateless: true } })
    expect(render('table').findAll('tbody [data-kit-cell="title"]').map((c) => c.text())).toEqual(['Alpha', 'Beta', 'Gamma'])
    expect(render('list').findAll('[data-kit-list] [data-kit-card-title]').map((c) => c.text())).toEqual(['Alpha', 'Beta', 'Gamma'])
    expect(render('grid').findAll('[data-kit-grid] [data-kit-card-layout="grid"]')).toHaveLength(3)
    const tree = render('tree')
    expect(tree.findAll('[data-kit-tree] > [data-kit-tree-node]').map((n) => n.attributes('data-kit-tree-node'))).toEqual(['a', 'c'])
    expect(tree.find('[data-kit-tree-children="a"] [data-kit-card-title]').text()).toBe('Beta')
    const kanban = render('kanban')
    expect(kanban.findAll('[data-kit-kanban-column]').map((c) => [c.attributes('data-kit-kanban-column'), c.findAll('[data-kit-card-title]').map((t) => t.text())])).toEqual([
      ['todo', ['Alpha', 'Gamma']],
      ['done', ['Beta']],
    ])
  })

  it('resolves the responsive presets at the spec breakpoints', () => {
    const cases: Array<[Parameters<typeof resolveLayout>[0], number, LayoutType]> = [
      ['responsive', 0, 'list'],
      ['responsive', 767, 'list'],
      ['responsive', 768, 'grid'],
      ['responsive', 1023, 'grid'],
      ['responsive', 1024, 'table'],
      ['mobile-friendly', 1023, 'list'],
      ['mobile-friendly', 1024, 'table'],
      ['compact', 1279, 'list'],
      ['compact', 1280, 'table'],
      ['tree-default', 2000, 'tree'],
      [{ base: 'list', sm: 'grid', '2xl': 'kanban' }, 639, 'list'],
      [{ base: 'list', sm: 'grid', '2xl': 'kanban' }, 640, 'grid'],
      [{ base: 'list', sm: 'grid', '2xl': 'kanban' }, 1536, 'kanban'],
      ['grid', 100, 'grid'],
    ]
    for (const [layout, width, want] of cases) expect(resolveLayout(layout, width), `${JSON.stringify(layout)} at ${width}`).toBe(want)
  })

  it('switches the responsive layout when the viewport crosses a breakpoint', async () => {
    setWidth(500)
    const w = mount(KitCollection, { props: { collection: 'tasks', rows, columns, layout: 'responsive', stateless: true } })
    expect(w.attributes('data-kit-layout')).toBe('list')
    setWidth(800)
    await flushPromises()
    expect(w.attributes('data-kit-layout')).toBe('grid')
    setWidth(1200)
    await flushPromises()
    expect(w.attributes('data-kit-layout')).toBe('table')
    setWidth(1024)
  })

  it('gridSize gives compact 4, comfortable 3 (the default) and spacious 2 columns', () => {
    for (const [gridSize, cols, cls] of [
      [undefined, '3', 'lg:grid-cols-3'],
      ['compact', '4', 'lg:grid-cols-4'],
      ['comfortable', '3', 'lg:grid-cols-3'],
      ['spacious', '2', 'lg:grid-cols-2'],
    ] as const) {
      const w = mount(KitCollection, { props: { collection: 'tasks', rows, layout: 'grid', stateless: true, ...(gridSize ? { gridSize } : {}) } })
      const grid = w.find('[data-kit-grid]')
      expect(grid.attributes('data-kit-grid-cols'), String(gridSize)).toBe(cols)
      expect(grid.classes(), String(gridSize)).toContain(cls)
    }
  })

  it('resolves cards: cardComponent, <Collection><card>, <Collection>Card with the layout, a registered card, else KitCard', () => {
    const components = {
      ShopProductsCard: namedCard('ShopProductsCard'),
      ShopProductsCardSmall: namedCard('ShopProductsCardSmall'),
      FancyCard: namedCard('FancyCard'),
    }
    const first = (props: Record<string, unknown>) => {
      const w = mount(KitCollection, { props: { collection: 'shopProducts', rows, layout: 'list', stateless: true, ...props }, global: { components } })
      return w.find('li > *')
    }
    expect(first({}).text()).toBe('ShopProductsCard:list:Alpha')
    expect(first({ layout: 'grid' }).text()).toBe('ShopProductsCard:grid:Alpha')
    expect(first({ card: 'CardSmall' }).text()).toBe('ShopProductsCardSmall:list:Alpha')
    expect(first({ card: 'FancyCard' }).text()).toBe('FancyCard:list:Alpha')
    expect(first({ cardComponent: namedCard('Given') }).text()).toBe('Given:list:Alpha')
    const none = mount(KitCollection, { props: { collection: 'blogPosts', rows, layout: 'list', stateless: true, card: 'CardMini' } })
    expect(none.findComponent(KitCard).exists()).toBe(true)
    expect(none.find('[data-kit-card]').attributes('data-kit-card')).toBe('KitCard')
  })

  it('stateless looks up no config and offers no writes', () => {
    // No kit plugin is installed: a config lookup or a write would throw.
    const w = mount(KitCollection, { props: { collection: 'shopProducts', rows, columns, stateless: true } })
    expect(w.find('[data-kit-create]').exists()).toBe(false)
    expect(w.find('th[data-kit-column="select"]').exists()).toBe(false)
    expect(w.find('th[data-kit-column="actions"]').exists()).toBe(false)
    expect(w.find('tbody [data-kit-cell="title"]').text()).toBe('Alpha')
  })

  it('without rows it fetches the collection with server pagination, sort and search', async () => {
    const tag = unique('coll')
    const products = clientAs('ann').team('acme').collection('shopProducts')
    for (const t of ['Lamp', 'Desk', 'Lamp shade']) await products.create({ title: `${tag} ${t}`, price: '1' })
    const w = mountWithKit(KitCollection, { props: { collection: 'shopProducts', layout: 'table' } })
    await waitFor(() => expect(w.find('th[data-kit-column="sku"]').exists()).toBe(true))
    expect(w.find('[data-kit-create]').exists()).toBe(true)
    await w.find('input[type="search"]').setValue(`${tag} lamp`)
    await waitFor(() => expect(w.findAll('tbody [data-kit-cell="title"]').map((c) => c.text())).toEqual([`${tag} Lamp shade`, `${tag} Lamp`]))
    expect(w.find('[data-kit-summary]').text()).toBe('Showing 1 to 2 of 2 results')
    await w.find('[data-kit-sort="title"]').trigger('click')
    await waitFor(() => expect(w.findAll('tbody [data-kit-cell="title"]').map((c) => c.text())).toEqual([`${tag} Lamp`, `${tag} Lamp shade`]))
  })

  it('a tree collection is a tree by default, and dragging a node under another moves it on the server', async () => {
    const tag = unique('tree')
    const cats = clientAs('ann').team('acme').collection('shopCategories')
    const a = await cats.create({ title: `${tag} A` })
    const b = await cats.create({ title: `${tag} B` })
    const w = mountWithKit(KitCollection, { props: { collection: 'shopCategories' } })
    await waitFor(() => expect(w.find(`[data-kit-tree-node="${a.id}"]`).exists()).toBe(true))
    expect(w.attributes('data-kit-layout')).toBe('tree')
    const target = w.find(`[data-kit-tree-children="${b.id}"]`).element as HTMLElement
    const s = Sortable.get(target)!
    expect(s.options).toMatchObject({ animation: 150, handle: '[data-kit-drag-handle]', group: { name: 'kit-tree-shopCategories' }, forceFallback: true })
    // As SortableJS reports a drop of A as B's first child.
    const item = w.find(`[data-kit-tree-node="${a.id}"]`).element as HTMLElement
    const from = item.parentElement!
    const oldIndex = [...from.children].indexOf(item)
    target.appendChild(item)
    s.options.onEnd!({ item, from, to: target, oldIndex, newIndex: 0 } as unknown as Sortable.SortableEvent)
    await waitFor(() => expect(w.emitted('move')).toEqual([[{ id: a.id, parentId: b.id, order: 0 }]]))
    await waitFor(async () => expect((await cats.item(a.id, { force: true })).parentId).toBe(b.id))
    await waitFor(() => expect(w.find(`[data-kit-tree-children="${b.id}"] [data-kit-tree-node="${a.id}"]`).exists()).toBe(true))
  })

  it('a tree collection reads its whole tree (GET .../tree), not a page of the list, and reads it again after a write', async () => {
    const tag = unique('whole')
    const cats = clientAs('ann').team('acme').collection('shopCategories')
    const a = await cats.create({ title: `${tag} A` })
    const fetchSpy = vi.spyOn(globalThis, 'fetch')
    const treeReads = () => fetchSpy.mock.calls.filter(([input]) => /\/shop-categories\/tree(\?|$)/.test(String(input instanceof Request ? input.url : input))).length
    try {
      const w = mountWithKit(KitCollection, { props: { collection: 'shopCategories' } })
      await waitFor(() => expect(w.find(`[data-kit-tree-node="${a.id}"]`).exists()).toBe(true))
      await waitFor(() => expect(treeReads()).toBe(1))
      const b = await w.kit.client.team('acme').collection('shopCategories').create({ title: `${tag} B`, parentId: a.id })
      await waitFor(() => expect(w.find(`[data-kit-tree-children="${a.id}"] [data-kit-tree-node="${b.id}"]`).exists()).toBe(true))
      expect(treeReads()).toBe(2)
    } finally {
      fetchSpy.mockRestore()
    }
  })

  it('arrow keys on a tree node handle move it: Right under the node above, Left out of its parent, Up and Down among its siblings', async () => {
    const tag = unique('keys')
    const cats = clientAs('ann').team('acme').collection('shopCategories')
    const a = await cats.create({ title: `${tag} A` })
    const b = await cats.create({ title: `${tag} B` })
    const c = await cats.create({ title: `${tag} C` })
    const w = mountWithKit(KitCollection, {
      props: { collection: 'shopCategories' },
      slots: { 'node-actions': `<template #node-actions="{ item }"><button type="button" data-test="edit">Edit {{ item.title }}</button></template>` },
      attachTo: document.body,
    })
    const handle = (id: string) => w.find(`[data-kit-tree-node="${id}"] > div [data-kit-drag-handle]`)
    await waitFor(() => expect(handle(c.id).exists()).toBe(true))
    expect(handle(c.id).attributes('aria-label')).toBe(`Move ${tag} C`)
    expect(w.find(`[data-kit-tree-node="${c.id}"] > div [data-test="edit"]`).text()).toBe(`Edit ${tag} C`)
    const stored = async (id: string) => {
      const r = await cats.item(id, { force: true })
      return [r.parentId ?? null, r.order as number] as const
    }

    await handle(c.id).trigger('keydown', { key: 'ArrowRight' })
    await waitFor(async () => expect(await stored(c.id)).toEqual([b.id, 0]))
    await waitFor(() => expect(w.find(`[data-kit-tree-children="${b.id}"] [data-kit-tree-node="${c.id}"]`).exists()).toBe(true))
    await waitFor(() => expect(document.activeElement).toBe(handle(c.id).element))
    // A first child has no node above it among its siblings: Right does nothing.
    await handle(c.id).trigger('keydown', { key: 'ArrowRight' })

    await handle(c.id).trigger('keydown', { key: 'ArrowLeft' })
    await waitFor(async () => expect(await stored(c.id)).toEqual([null, (await stored(b.id))[1]! + 1]))
    await waitFor(() => expect(w.find(`[data-kit-tree-children="${b.id}"] [data-kit-tree-node="${c.id}"]`).exists()).toBe(false))
    await waitFor(() => expect(document.activeElement).toBe(handle(c.id).element))

    const before = (await stored(a.id))[1]!
    await handle(b.id).trigger('keydown', { key: 'ArrowUp' })
    await waitFor(async () => expect(await stored(b.id)).toEqual([null, before]))
    // The move is done when the tree is read again and the focus is on B's handle.
    await waitFor(() => expect(document.activeElement).toBe(handle(b.id).element))
    await handle(b.id).trigger('keydown', { key: 'ArrowDown' })
    await waitFor(async () => expect(await stored(a.id)).toEqual([null, before]))
    expect(w.emitted('move')).toEqual([
      [{ id: c.id, parentId: b.id, order: 0 }],
      [{ id: c.id, parentId: null, order: expect.any(Number) }],
      [{ id: b.id, parentId: null, order: before }],
      [{ id: b.id, parentId: null, order: before + 1 }],
    ])
  })

  it('a node moved by a key has the focus on its handle in the render that shows it moved, before the list read back ends', async () => {
    const tag = unique('focus')
    const cats = clientAs('ann').team('acme').collection('shopCategories')
    const a = await cats.create({ title: `${tag} A` })
    const b = await cats.create({ title: `${tag} B` })
    // The list read after the move answers 500 ms late, the tree read at
    // once: for those 500 ms the tree shows the node in its new place.
    const realFetch = globalThis.fetch
    let slowList = false
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = String(input instanceof Request ? input.url : input)
      if (slowList && /\/shop-categories(\?|$)/.test(url)) await new Promise((r) => setTimeout(r, 500))
      return realFetch(input, init)
    })
    try {
      const w = mountWithKit(KitCollection, { props: { collection: 'shopCategories' }, attachTo: document.body })
      const handle = (id: string) => w.find(`[data-kit-tree-node="${id}"] > div [data-kit-drag-handle]`)
      await waitFor(() => expect(handle(b.id).exists()).toBe(true))
      ;(handle(b.id).element as HTMLElement).focus()
      slowList = true
      await handle(b.id).trigger('keydown', { key: 'ArrowRight' })
      await waitFor(() => expect(w.find(`[data-kit-tree-children="${a.id}"] [data-kit-tree-node="${b.id}"]`).exists()).toBe(true))
      expect(document.activeElement).toBe(handle(b.id).element)
      await waitFor(async () => expect((await cats.item(b.id, { force: true })).parentId).toBe(a.id))
    } finally {
      fetchSpy.mockRestore()
    }
  })

  it('a sortable table emits reorder with the new order', async () => {
    const w = mount(KitCollection, { props: { collection: 'tasks', rows, columns, stateless: true, sortable: true } })
    await flushPromises()
    const body = w.find('tbody').element as HTMLElement
    const item = body.children[2]!
    body.insertBefore(item, body.children[0]!)
    Sortable.get(body)!.options.onEnd!({ item, from: body, to: body, oldIndex: 2, newIndex: 0 } as unknown as Sortable.SortableEvent)
    expect(w.emitted('reorder')).toEqual([[['c', 'a', 'b']]])
  })

  it('without a layout prop it takes the registry layout key, and an invalid one is ignored', async () => {
    const tasks = (layout: unknown) => ({ tasks: { name: 'tasks', layer: 'app', layout } })
    setWidth(390)
    const phone = mountWithKit(KitCollection, { props: { collection: 'tasks', rows, columns } }, { collections: tasks('mobile-friendly') })
    expect(phone.attributes('data-kit-layout')).toBe('list')
    setWidth(1024)
    await flushPromises()
    expect(phone.attributes('data-kit-layout')).toBe('table')
    const custom = mountWithKit(KitCollection, { props: { collection: 'tasks', rows, columns } }, { collections: tasks({ base: 'grid' }) })
    expect(custom.attributes('data-kit-layout')).toBe('grid')
    for (const bad of ['sideways', { base: 'sideways' }, { base: 'list', phone: 'grid' }, ['list'], 7]) {
      const w = mountWithKit(KitCollection, { props: { collection: 'tasks', rows, columns } }, { collections: tasks(bad) })
      expect(w.attributes('data-kit-layout'), JSON.stringify(bad)).toBe('table')
    }
    expect(isLayout({ base: 'list', lg: 'table' })).toBe(true)
  })

  it('the card layouts search case-insensitively, page the rows and go back to page 1 on a search', async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ id: `r${i}`, title: i % 2 ? `Lamp ${i}` : `Chair ${i}` }))
    const w = mount(KitCollection, { props: { collection: 'tasks', rows: many, columns, layout: 'list', stateless: true } })
    const titles = () => w.findAll('[data-kit-list] [data-kit-card-title]').map((c) => c.text())
    expect(titles()).toHaveLength(10)
    expect(w.find('[data-kit-summary]').text()).toBe('Showing 1 to 10 of 12 results')
    await w.find('[aria-label="Next page"]').trigger('click')
    expect(titles()).toEqual(['Chair 10', 'Lamp 11'])
    vi.useFakeTimers()
    try {
      await w.find('input[type=search]').setValue('LAMP')
      vi.advanceTimersByTime(300)
    } finally {
      vi.useRealTimers()
    }
    await flushPromises()
    expect(titles()).toEqual(['Lamp 1', 'Lamp 3', 'Lamp 5', 'Lamp 7', 'Lamp 9', 'Lamp 11'])
    expect(w.find('[data-kit-summary]').text()).toBe('Showing 1 to 6 of 6 results')
  })

  it('with server pagination the card layouts ask refreshFn for the page, the size and the search, keeping the sort', async () => {
    const refreshFn = vi.fn()
    const paginationData = { currentPage: 1, pageSize: 5, totalItems: 12, sortBy: 'title', sortDirection: 'asc' as const }
    const w = mount(KitCollection, { props: { collection: 'tasks', rows, columns, layout: 'grid', stateless: true, serverPagination: true, paginationData, refreshFn } })
    expect(w.find('[data-kit-summary]').text()).toBe('Showing 1 to 5 of 12 results')
    expect(w.findAll('[data-kit-grid] [data-kit-card-title]')).toHaveLength(3)
    await w.find('[aria-label="Next page"]').trigger('click')
    await w.find('nav select').setValue('10')
    await w.findComponent({ name: 'KitTableSearch' }).vm.$emit('update:modelValue', 'lamp')
    expect(refreshFn.mock.calls.map(([q]) => q)).toEqual([
      { page: 2, pageSize: 5, sortBy: 'title', sortDirection: 'asc', search: '' },
      { page: 1, pageSize: 10, sortBy: 'title', sortDirection: 'asc', search: '' },
      { page: 1, pageSize: 5, sortBy: 'title', sortDirection: 'asc', search: 'lamp' },
    ])
  })

  it('every card has Edit and Delete buttons that open the update and delete forms; stateless or a hidden actions column shows none', async () => {
    setWidth(1024)
    const w = mountWithKit(KitCollection, { props: { collection: 'tasks', rows, columns, layout: 'list' } })
    await w.find('[data-kit-item="b"] [data-kit-edit]').trigger('click')
    expect([w.kit.forms.state.action, w.kit.forms.state.collection, w.kit.forms.state.ids]).toEqual(['update', 'tasks', ['b']])
    expect(w.find('[data-kit-item="c"] [data-kit-row-delete]').attributes('aria-label')).toBe('Delete Gamma')
    await w.find('[data-kit-item="c"] [data-kit-row-delete]').trigger('click')
    expect([w.kit.forms.state.action, w.kit.forms.state.ids]).toEqual(['delete', ['c']])
    const stateless = mount(KitCollection, { props: { collection: 'tasks', rows, columns, layout: 'list', stateless: true } })
    const hidden = mountWithKit(KitCollection, { props: { collection: 'tasks', rows, columns, layout: 'grid', hideDefaultColumns: ['actions'] } })
    for (const c of [stateless, hidden]) expect(c.find('[data-kit-edit], [data-kit-row-delete]').exists()).toBe(false)
  })

  it('the list-header slot replaces the card layouts search and can set it', async () => {
    const w = mount(KitCollection, {
      props: { collection: 'tasks', rows, columns, layout: 'list', stateless: true },
      slots: { 'list-header': `<template #list-header="{ setSearch }"><button data-test="gamma" @click="setSearch('gam')">Gamma</button></template>` },
    })
    expect(w.find('input[type=search]').exists()).toBe(false)
    await w.find('[data-test=gamma]').trigger('click')
    expect(w.findAll('[data-kit-card-title]').map((c) => c.text())).toEqual(['Gamma'])
  })

  describe('the workspace layout', () => {
    const wide = [
      { accessorKey: 'title', header: 'Title' },
      { accessorKey: 'status', header: 'Status', cell: ({ value }: { value: unknown }) => h('b', { 'data-test': 'status' }, String(value).toUpperCase()) },
    ]

    it('shows the list with the selected record in a detail beside it, its columns rendered by their cell functions', async () => {
      setWidth(1280)
      const w = mount(KitCollection, { props: { collection: 'tasks', rows, columns: wide, layout: 'workspace', stateless: true }, attachTo: document.body })
      expect(w.attributes('data-kit-layout')).toBe('workspace')
      expect(w.find('[data-kit-workspace]').attributes('data-kit-workspace-pane')).toBe('both')
      expect(w.find('[data-kit-detail-empty]').text()).toBe('Select a record in the list to see it here.')
      await w.find('[data-kit-select="b"]').trigger('click')
      expect(w.emitted('update:selected')).toEqual([['b']])
      expect(w.find('[data-kit-select="b"]').attributes('aria-current')).toBe('true')
      expect(w.find('[data-kit-detail-title]').text()).toBe('Beta')
      expect(w.find('[data-kit-detail-value="title"]').text()).toBe('Beta')
      expect(w.find('[data-kit-detail-value="status"] [data-test="status"]').text()).toBe('DONE')
      expect(w.findAll('[data-kit-list] [data-kit-card-layout]').map((c) => c.attributes('data-kit-card-layout'))).toEqual(['workspace', 'workspace', 'workspace'])
      expect(w.find('[data-kit-workspace-detail] [data-kit-edit]').exists()).toBe(false)
    })

    it('Arrow Down and Arrow Up move the selection along the list, and the focus with it', async () => {
      setWidth(1280)
      const w = mount(KitCollection, { props: { collection: 'tasks', rows, columns, layout: 'workspace', stateless: true, selected: 'a' }, attachTo: document.body })
      const list = w.find('[data-kit-list]')
      await list.trigger('keydown', { key: 'ArrowDown' })
      expect(w.emitted('update:selected')?.at(-1)).toEqual(['b'])
      await w.setProps({ selected: 'b' })
      await list.trigger('keydown', { key: 'ArrowDown' })
      expect(w.emitted('update:selected')?.at(-1)).toEqual(['c'])
      await w.setProps({ selected: 'c' })
      await list.trigger('keydown', { key: 'ArrowDown' })
      expect(w.emitted('update:selected')?.at(-1)).toEqual(['c'])
      await list.trigger('keydown', { key: 'ArrowUp' })
      expect(w.emitted('update:selected')?.at(-1)).toEqual(['b'])
      await flushPromises()
      expect(document.activeElement?.getAttribute('data-kit-select')).toBe('b')
    })

    it('below lg it shows one pane at a time: the list, then the detail with a button back to the list', async () => {
      setWidth(390)
      const w = mount(KitCollection, { props: { collection: 'tasks', rows, columns, layout: 'workspace', stateless: true }, attachTo: document.body })
      expect(w.find('[data-kit-workspace-detail]').exists()).toBe(false)
      await w.find('[data-kit-select="c"]').trigger('click')
      await flushPromises()
      expect(w.find('[data-kit-workspace]').attributes('data-kit-workspace-pane')).toBe('detail')
      expect(w.find('[data-kit-list]').exists()).toBe(false)
      expect(w.find('input[type=search]').exists()).toBe(false)
      expect(w.find('[data-kit-detail-title]').text()).toBe('Gamma')
      expect(document.activeElement?.hasAttribute('data-kit-workspace-back')).toBe(true)
      await w.find('[data-kit-workspace-back]').trigger('click')
      await flushPromises()
      expect(w.find('[data-kit-workspace]').attributes('data-kit-workspace-pane')).toBe('list')
      expect(document.activeElement?.getAttribute('data-kit-select')).toBe('c')
      setWidth(1024)
    })

    it('reads a selected record that is not on the page by id, opens its forms from the detail and unselects it once deleted', async () => {
      setWidth(1280)
      const tag = unique('ws')
      const products = clientAs('ann').team('acme').collection('shopProducts')
      const far = await products.create({ title: `${tag} Far away`, price: '3.00' })
      const w = mountWithKit(KitCollection, { props: { collection: 'shopProducts', rows: rows, columns, layout: 'workspace', selected: far.id } })
      await waitFor(() => expect(w.find('[data-kit-detail-title]').text()).toBe(`${tag} Far away`))
      await w.find('[data-kit-workspace-detail] [data-kit-edit]').trigger('click')
      expect([w.kit.forms.state.action, w.kit.forms.state.ids]).toEqual(['update', [far.id]])
      await w.find('[data-kit-workspace-detail] [data-kit-row-delete]').trigger('click')
      expect([w.kit.forms.state.action, w.kit.forms.state.ids]).toEqual(['delete', [far.id]])
      await w.kit.client.team('acme').collection('shopProducts').delete(far.id)
      await waitFor(() => expect(w.emitted('update:selected')?.at(-1)).toEqual([null]))
    })

    it('says so when the selected record cannot be read', async () => {
      setWidth(1280)
      const w = mountWithKit(KitCollection, { props: { collection: 'shopProducts', rows, columns, layout: 'workspace', selected: '01900000-0000-7000-8000-000000000000' } })
      await waitFor(() => expect(w.find('[data-kit-detail-missing]').text()).toBe('This record is no longer there. Pick another one from the list.'))
    })
  })
})
