// @vitest-environment happy-dom
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils'
import Sortable from 'sortablejs'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { h, nextTick } from 'vue'
import { KitTable, type TableCellContext, type TableQuery } from '../../src/index'
import { mountWithKit } from './mount'

const rows = [
  { id: 'a', title: 'Alpha lamp', sku: 'A-1', stock: 5, createdAt: '2026-01-01T00:00:00Z', createdBy: 'u1' },
  { id: 'b', title: 'beta Desk', sku: 'B-2', stock: 7, createdAt: '2026-01-03T00:00:00Z', createdBy: 'u2' },
  { id: 'c', title: 'Gamma LAMP', sku: 'C-3', stock: 1, createdAt: '2026-01-02T00:00:00Z', createdBy: 'u1' },
]
const columns = [
  { accessorKey: 'id', header: 'ID' },
  { accessorKey: 'title', header: 'Title', sortable: true },
  { accessorKey: 'sku', header: 'SKU' },
  { accessorKey: 'stock', header: 'Stock', sortable: true },
]
const manyRows = Array.from({ length: 25 }, (_, i) => ({
  id: `r${i}`,
  title: i % 5 === 0 ? `Lamp ${i}` : `Chair ${i}`,
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
}))

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const cells = (w: VueWrapper<any>, key: string) => w.findAll(`tbody [data-kit-cell="${key}"]`).map((c) => c.text())
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const headers = (w: VueWrapper<any>) => w.findAll('thead th').map((th) => th.attributes('data-kit-column'))

afterEach(() => {
  vi.useRealTimers()
})

describe('KitTable', () => {
  it('sorts by createdAt descending by default', () => {
    const w = mount(KitTable, { props: { columns, rows, collection: 'shopProducts' } })
    expect(cells(w, 'title')).toEqual(['beta Desk', 'Gamma LAMP', 'Alpha lamp'])
    expect(w.find('th[data-kit-column="createdAt"]').attributes('aria-sort')).toBe('descending')
  })

  it('a sortable header click sorts ascending and a second click reverses', async () => {
    const w = mount(KitTable, { props: { columns, rows, collection: 'shopProducts' } })
    await w.find('[data-kit-sort="stock"]').trigger('click')
    expect(cells(w, 'stock')).toEqual(['1', '5', '7'])
    expect(w.find('th[data-kit-column="stock"]').attributes('aria-sort')).toBe('ascending')
    await w.find('[data-kit-sort="stock"]').trigger('click')
    expect(cells(w, 'stock')).toEqual(['7', '5', '1'])
    expect(w.find('th[data-kit-column="stock"]').attributes('aria-sort')).toBe('descending')
  })

  it('a column that is not sortable has no sort button', () => {
    const w = mount(KitTable, { props: { columns, rows, collection: 'shopProducts' } })
    expect(w.find('[data-kit-sort="sku"]').exists()).toBe(false)
    expect(w.find('th[data-kit-column="sku"]').attributes('aria-sort')).toBeUndefined()
  })

  it('with server pagination a sort fetches with sortBy and sortDirection', async () => {
    const calls: TableQuery[] = []
    const w = mount(KitTable, {
      props: {
        columns,
        rows,
        collection: 'shopProducts',
        serverPagination: true,
        paginationData: { currentPage: 2, pageSize: 10, totalItems: 23, sortBy: 'createdAt', sortDirection: 'desc' },
        refreshFn: (q: TableQuery) => void calls.push(q),
      },
    })
    // The server's order is kept: no client-side sort.
    expect(cells(w, 'title')).toEqual(['Alpha lamp', 'beta Desk', 'Gamma LAMP'])
    await w.find('[data-kit-sort="title"]').trigger('click')
    await w.find('[data-kit-sort="title"]').trigger('click')
    expect(calls).toEqual([
      { page: 2, pageSize: 10, sortBy: 'title', sortDirection: 'asc', search: '' },
      { page: 2, pageSize: 10, sortBy: 'title', sortDirection: 'desc', search: '' },
    ])
    expect(w.find('[data-kit-summary]').text()).toBe('Showing 11 to 20 of 23 results')
  })

  it('with server pagination a page or page size change fetches that page', async () => {
    const calls: TableQuery[] = []
    const w = mount(KitTable, {
      props: {
        columns,
        rows,
        collection: 'shopProducts',
        serverPagination: true,
        paginationData: { currentPage: 1, pageSize: 10, totalItems: 23 },
        refreshFn: (q: TableQuery) => void calls.push(q),
      },
    })
    await w.find('[aria-label="Next page"]').trigger('click')
    await w.find('nav select').setValue('20')
    expect(calls.map((q) => [q.page, q.pageSize])).toEqual([
      [2, 10],
      [1, 20],
    ])
  })

  it('search is case-insensitive over visible string columns, debounced 300 ms, and resets to page 1', async () => {
    vi.useFakeTimers()
    const w = mount(KitTable, { props: { columns: [{ accessorKey: 'title', header: 'Title' }], rows: manyRows, collection: 'shopProducts' } })
    await w.find('[aria-label="Next page"]').trigger('click')
    expect(w.find('[data-kit-summary]').text()).toBe('Showing 11 to 20 of 25 results')

    await w.find('input[type="search"]').setValue('LAMP')
    vi.advanceTimersByTime(299)
    await nextTick()
    expect(w.find('[data-kit-summary]').text()).toBe('Showing 11 to 20 of 25 results')
    vi.advanceTimersByTime(1)
    await nextTick()
    expect(w.find('[data-kit-summary]').text()).toBe('Showing 1 to 5 of 5 results')
    expect(cells(w, 'title')).toEqual(['Lamp 20', 'Lamp 15', 'Lamp 10', 'Lamp 5', 'Lamp 0'])
  })

  it('search skips hidden columns and values that are not strings', async () => {
    vi.useFakeTimers()
    const w = mount(KitTable, { props: { columns, rows, collection: 'shopProducts' } })
    // The id column is hidden: 'b' is only an id; stock 7 is a number.
    for (const [term, want] of [
      ['b', ['beta Desk']],
      ['7', []],
      ['a-1', ['Alpha lamp']],
    ] as const) {
      await w.find('input[type="search"]').setValue(term)
      vi.advanceTimersByTime(300)
      await nextTick()
      expect(cells(w, 'title'), term).toEqual(want)
    }
    await w.find('input[data-kit-column="sku"]').setValue(false)
    await w.find('input[type="search"]').setValue('a-1')
    vi.advanceTimersByTime(300)
    await nextTick()
    expect(cells(w, 'title')).toEqual([])
  })

  it('the id column is hidden by default', () => {
    const w = mount(KitTable, { props: { columns, rows, collection: 'shopProducts' } })
    expect(headers(w)).toEqual(['select', 'title', 'sku', 'stock', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt', 'actions'])
    expect(w.find('[data-kit-cell="id"]').exists()).toBe(false)
  })

  it('hideDefaultColumns hides the named default columns', () => {
    const w = mount(KitTable, {
      props: { columns, rows, collection: 'shopProducts', hideDefaultColumns: ['createdBy', 'updatedBy', 'updatedAt', 'actions'] },
    })
    expect(headers(w)).toEqual(['select', 'title', 'sku', 'stock', 'createdAt'])
  })

  it('the default cell slots and any <field>-cell slot override a cell', () => {
    const w = mount(KitTable, {
      props: { columns, rows, collection: 'shopProducts' },
      slots: {
        'createdBy-cell': (p: { row: { id: string }; value: unknown }) => h('b', `by ${String(p.value)} on ${p.row.id}`),
        'createdAt-cell': () => 'when',
        'updatedBy-cell': () => 'who',
        'updatedAt-cell': () => 'later',
        'actions-cell': (p: { row: { id: string } }) => h('a', { href: `#${p.row.id}` }, 'open'),
        'sku-cell': (p: { value: unknown }) => `SKU ${String(p.value)}`,
      },
    })
    expect(cells(w, 'createdBy')).toEqual(['by u2 on b', 'by u1 on c', 'by u1 on a'])
    expect(cells(w, 'createdAt')).toEqual(['when', 'when', 'when'])
    expect(cells(w, 'updatedBy')).toEqual(['who', 'who', 'who'])
    expect(cells(w, 'updatedAt')).toEqual(['later', 'later', 'later'])
    expect(w.findAll('[data-kit-cell="actions"] a').map((a) => a.attributes('href'))).toEqual(['#b', '#c', '#a'])
    expect(cells(w, 'sku')).toEqual(['SKU B-2', 'SKU C-3', 'SKU A-1'])
  })

  it('a column cell function receives the row and the value', () => {
    const w = mount(KitTable, {
      props: {
        columns: [{ accessorKey: 'sku', header: 'SKU', cell: ({ row, value }: TableCellContext) => `${String(value)}/${String(row.title)}` }],
        rows,
        collection: 'shopProducts',
      },
    })
    expect(cells(w, 'sku')).toEqual(['B-2/beta Desk', 'C-3/Gamma LAMP', 'A-1/Alpha lamp'])
  })

  it('a header slot replaces the header', () => {
    const w = mount(KitTable, {
      props: { columns, rows, collection: 'shopProducts' },
      slots: { header: () => h('div', { class: 'mine' }, 'My header') },
    })
    expect(w.find('.mine').text()).toBe('My header')
    expect(w.find('input[type="search"]').exists()).toBe(false)
    expect(w.find('[data-kit-delete]').exists()).toBe(false)
  })

  it('the row actions open the update and delete forms of the row', async () => {
    const w = mountWithKit(KitTable, { props: { columns, rows, collection: 'shopProducts' } })
    await w.find('[data-kit-row="c"] [data-kit-edit]').trigger('click')
    expect(w.kit.forms.state).toMatchObject({ action: 'update', collection: 'shopProducts', ids: ['c'], loading: 'update_open' })
    await w.find('[data-kit-row="a"] [data-kit-row-delete]').trigger('click')
    expect(w.kit.forms.state).toMatchObject({ action: 'delete', collection: 'shopProducts', ids: ['a'], loading: 'delete_open' })
  })

  it('selecting rows selects them for the bulk delete; the header checkbox selects the page', async () => {
    const w = mountWithKit(KitTable, { props: { columns, rows, collection: 'shopProducts' } })
    await w.find('[data-kit-row="a"] input[type="checkbox"]').setValue(true)
    expect(w.find('thead input[type="checkbox"]').attributes('aria-checked')).toBe('mixed')
    expect(w.find('[data-kit-count]').text()).toBe('1')
    await w.find('thead input[type="checkbox"]').trigger('change')
    expect(w.find('[data-kit-count]').text()).toBe('3')
    await w.find('[data-kit-delete]').trigger('click')
    expect(w.kit.forms.state).toMatchObject({ action: 'delete', loading: 'delete_open' })
    expect([...w.kit.forms.state.ids].sort()).toEqual(['a', 'b', 'c'])
  })

  it('sortable rows drag by a handle with a 150 ms animation, and emit reorder with the new order', async () => {
    const w = mount(KitTable, { props: { columns, rows, collection: 'shopProducts', sortable: true, hideDefaultColumns: ['createdAt', 'createdBy', 'updatedAt', 'updatedBy'] } })
    await flushPromises()
    const body = w.find('tbody').element as HTMLElement
    const s = Sortable.get(body)!
    expect(s.options).toMatchObject({ animation: 150, disabled: false, handle: '[data-kit-drag-handle]', forceFallback: true })
    expect(w.findAll('[data-kit-drag-handle]')).toHaveLength(3)
    // Sortable rows keep the given order (no createdAt sort).
    expect(cells(w, 'title')).toEqual(['Alpha lamp', 'beta Desk', 'Gamma LAMP'])

    // Drop the first row last, as SortableJS reports it after a drag.
    const item = body.children[0]!
    body.appendChild(item)
    s.options.onEnd!({ item, from: body, to: body, oldIndex: 0, newIndex: 2 } as unknown as Sortable.SortableEvent)
    await nextTick()
    expect(w.emitted('reorder')).toEqual([[['b', 'c', 'a']]])
    expect(cells(w, 'title')).toEqual(['beta Desk', 'Gamma LAMP', 'Alpha lamp'])
  })

  it('Arrow Up and Arrow Down on a row handle move the row one place and emit reorder, the handle keeping the focus', async () => {
    const w = mount(KitTable, {
      props: { columns, rows, collection: 'shopProducts', sortable: true, hideDefaultColumns: ['createdAt', 'createdBy', 'updatedAt', 'updatedBy'] },
      attachTo: document.body,
    })
    await flushPromises()
    const handle = () => w.find('[data-kit-row="c"] [data-kit-drag-handle]')
    expect(handle().attributes('aria-keyshortcuts')).toBe('ArrowUp ArrowDown')
    await handle().trigger('keydown', { key: 'ArrowUp' })
    await flushPromises()
    expect(cells(w, 'title')).toEqual(['Alpha lamp', 'Gamma LAMP', 'beta Desk'])
    expect(document.activeElement).toBe(handle().element)
    await handle().trigger('keydown', { key: 'ArrowUp' })
    // The first row stays first.
    await handle().trigger('keydown', { key: 'ArrowUp' })
    await w.find('[data-kit-row="a"] [data-kit-drag-handle]').trigger('keydown', { key: 'ArrowDown' })
    await flushPromises()
    expect(w.emitted('reorder')).toEqual([[['a', 'c', 'b']], [['c', 'a', 'b']], [['c', 'b', 'a']]])
    expect(cells(w, 'title')).toEqual(['Gamma LAMP', 'beta Desk', 'Alpha lamp'])
    // Other keys do nothing; a disabled sortable moves nothing.
    await handle().trigger('keydown', { key: 'Enter' })
    await w.setProps({ sortable: { disabled: true } })
    await handle().trigger('keydown', { key: 'ArrowDown' })
    expect(w.emitted('reorder')).toHaveLength(3)
  })

  it('new rows keep the keyboard focus on the control that had it, when Vue moves its row', async () => {
    const w = mount(KitTable, {
      props: { columns, rows, collection: 'shopProducts', sortable: true, hideDefaultColumns: ['createdAt', 'createdBy', 'updatedAt', 'updatedBy'] },
      attachTo: document.body,
    })
    await flushPromises()
    const handle = w.find('[data-kit-row="c"] [data-kit-drag-handle]').element as HTMLElement
    handle.focus()
    expect(document.activeElement).toBe(handle)
    await w.setProps({ rows: [rows[2]!, rows[1]!, rows[0]!] })
    await flushPromises()
    expect(cells(w, 'title')).toEqual(['Gamma LAMP', 'beta Desk', 'Alpha lamp'])
    expect(document.activeElement).toBe(handle)
  })

  it("a row's controls are labelled with its title, else its id", async () => {
    const w = mountWithKit(KitTable, {
      props: { columns, rows: [...rows, { id: 'd', createdAt: '2026-01-04T00:00:00Z' }], collection: 'shopProducts', sortable: true },
    })
    expect(w.find('[data-kit-row="a"] input[type="checkbox"]').attributes('aria-label')).toBe('Select Alpha lamp')
    expect(w.find('[data-kit-row="a"] [data-kit-edit]').attributes('aria-label')).toBe('Edit Alpha lamp')
    expect(w.find('[data-kit-row="a"] [data-kit-row-delete]').attributes('aria-label')).toBe('Delete Alpha lamp')
    expect(w.find('[data-kit-row="a"] [data-kit-drag-handle]').attributes('aria-label')).toBe('Move Alpha lamp')
    expect(w.find('[data-kit-row="d"] [data-kit-edit]').attributes('aria-label')).toBe('Edit d')
  })

  it('sortable options set handle, animation and disabled', async () => {
    const w = mount(KitTable, { props: { columns, rows, collection: 'shopProducts', sortable: { handle: false, animation: 300, disabled: true } } })
    await flushPromises()
    const s = Sortable.get(w.find('tbody').element as HTMLElement)!
    expect(s.options.animation).toBe(300)
    expect(s.options.disabled).toBe(true)
    expect(s.options.handle).toBeFalsy()
    expect(w.find('[data-kit-drag-handle]').exists()).toBe(false)
  })

  it('is not sortable by default', async () => {
    const w = mount(KitTable, { props: { columns, rows, collection: 'shopProducts' } })
    await flushPromises()
    expect(Sortable.get(w.find('tbody').element as HTMLElement)).toBeUndefined()
  })
})
