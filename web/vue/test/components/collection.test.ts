// @vitest-environment happy-dom
import { flushPromises, mount } from '@vue/test-utils'
import Sortable from 'sortablejs'
import { describe, expect, it } from 'vitest'
import { defineComponent, h } from 'vue'
import { KitCard, KitCollection, resolveLayout, type LayoutType } from '../../src/index'
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
    expect(s.options).toMatchObject({ animation: 150, handle: '[data-kit-drag-handle]', group: { name: 'kit-tree-shopCategories' } })
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

  it('a sortable table emits reorder with the new order', async () => {
    const w = mount(KitCollection, { props: { collection: 'tasks', rows, columns, stateless: true, sortable: true } })
    await flushPromises()
    const body = w.find('tbody').element as HTMLElement
    const item = body.children[2]!
    body.insertBefore(item, body.children[0]!)
    Sortable.get(body)!.options.onEnd!({ item, from: body, to: body, oldIndex: 2, newIndex: 0 } as unknown as Sortable.SortableEvent)
    expect(w.emitted('reorder')).toEqual([[['c', 'a', 'b']]])
  })
})
