// @vitest-environment happy-dom
import { mount } from '@vue/test-utils'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { h, nextTick } from 'vue'
import { KitTable, KitTableActions, KitTableCheckbox, KitTableHeader, KitTablePagination, KitTableSearch } from '../../src/index'
import { mountWithKit, waitFor } from './mount'

afterEach(() => {
  vi.useRealTimers()
})

describe('KitTableHeader', () => {
  it("labels the create button 'Create' on small screens and 'Create <Singular>' from md up", async () => {
    const w = mountWithKit(KitTableHeader, { props: { title: 'Products', collection: 'shopProducts', createButton: true } })
    await waitFor(() => expect(w.find('[data-kit-create] .md\\:inline').text()).toBe('Create Product'))
    // The singular comes from the registry's displayName.
    const boxes = mountWithKit(KitTableHeader, { props: { collection: 'shopBoxes', createButton: true } }, { collections: { shopBoxes: { name: 'boxes', displayName: 'Crates' } } })
    await waitFor(() => expect(boxes.find('[data-kit-create] .md\\:inline').text()).toBe('Create Crate'))
    const small = w.find('[data-kit-create] .md\\:hidden')
    expect(small.text()).toBe('Create')
    expect(w.find('[data-kit-create] .md\\:inline').classes()).toContain('hidden')
    expect(w.find('h1').text()).toBe('Products')
  })

  it('the create button opens the create form for the collection', async () => {
    const w = mountWithKit(KitTableHeader, { props: { collection: 'shopCategories', createButton: true } })
    await w.find('[data-kit-create]').trigger('click')
    expect(w.kit.forms.state).toMatchObject({ action: 'create', collection: 'shopCategories', loading: 'create_open', ids: [] })
  })

  it('has no create button by default, and renders the extraButtons slot', () => {
    const w = mount(KitTableHeader, { slots: { extraButtons: () => h('button', { id: 'extra' }, 'Export') } })
    expect(w.find('[data-kit-create]').exists()).toBe(false)
    expect(w.find('#extra').text()).toBe('Export')
    expect(w.find('h1').text()).toBe('')
  })
})

describe('KitTableSearch', () => {
  it('emits update:modelValue after the 300 ms debounce, once for a burst of typing', async () => {
    vi.useFakeTimers()
    const w = mount(KitTableSearch, { props: { modelValue: '' } })
    const input = w.find('input')
    await input.setValue('l')
    vi.advanceTimersByTime(200)
    await input.setValue('la')
    vi.advanceTimersByTime(299)
    expect(w.emitted('update:modelValue')).toBeUndefined()
    vi.advanceTimersByTime(1)
    expect(w.emitted('update:modelValue')).toEqual([['la']])
  })

  it('debounceMs sets the delay', async () => {
    vi.useFakeTimers()
    const w = mount(KitTableSearch, { props: { modelValue: '', debounceMs: 50 } })
    await w.find('input').setValue('x')
    vi.advanceTimersByTime(49)
    expect(w.emitted('update:modelValue')).toBeUndefined()
    vi.advanceTimersByTime(1)
    expect(w.emitted('update:modelValue')).toEqual([['x']])
  })

  it("has the placeholder 'Search...' by default", () => {
    expect(mount(KitTableSearch, { props: { modelValue: '' } }).find('input').attributes('placeholder')).toBe('Search...')
    expect(mount(KitTableSearch, { props: { modelValue: '', placeholder: 'Find' } }).find('input').attributes('placeholder')).toBe('Find')
  })

  it('emits an empty string at once when cleared, dropping the pending value', async () => {
    vi.useFakeTimers()
    const w = mount(KitTableSearch, { props: { modelValue: 'lamp' } })
    await w.find('input').setValue('lamps')
    await w.find('[data-kit-clear]').trigger('click')
    expect(w.emitted('update:modelValue')).toEqual([['']])
    vi.advanceTimersByTime(1000)
    expect(w.emitted('update:modelValue')).toEqual([['']])
    expect((w.find('input').element as HTMLInputElement).value).toBe('')
  })
})

describe('KitTablePagination', () => {
  const summary = (page: number, pageCount: number, totalItems: number) =>
    mount(KitTablePagination, { props: { page, pageCount, totalItems } }).find('[data-kit-summary]').text()

  it('shows Showing X to Y of Z results with X = (page-1)*pageCount+1 and Y = min(page*pageCount, totalItems)', () => {
    for (const [page, size, total, want] of [
      [1, 10, 95, 'Showing 1 to 10 of 95 results'],
      [3, 10, 95, 'Showing 21 to 30 of 95 results'],
      [10, 10, 95, 'Showing 91 to 95 of 95 results'],
      [2, 5, 6, 'Showing 6 to 6 of 6 results'],
    ] as const) {
      expect(summary(page, size, total)).toBe(want)
    }
  })

  it('shows Showing 0 to 0 of 0 results when there are no items', () => {
    expect(summary(1, 10, 0)).toBe('Showing 0 to 0 of 0 results')
  })

  it('offers the page sizes 5, 10, 20, 30, 40 by default', () => {
    const w = mount(KitTablePagination, { props: { page: 1, pageCount: 10, totalItems: 3 } })
    expect(w.findAll('option').map((o) => o.text())).toEqual(['5', '10', '20', '30', '40'])
    const custom = mount(KitTablePagination, { props: { page: 1, pageCount: 25, totalItems: 3, pageSizes: [25, 50] } })
    expect(custom.findAll('option').map((o) => o.text())).toEqual(['25', '50'])
  })

  it('emits update:page and update:pageCount', async () => {
    const w = mount(KitTablePagination, { props: { page: 2, pageCount: 10, totalItems: 95 } })
    await w.find('[aria-label="Next page"]').trigger('click')
    await w.find('[aria-label="Previous page"]').trigger('click')
    await w.find('button[aria-current="page"]').trigger('click')
    await w.findAll('button').find((b) => b.text() === '10')!.trigger('click')
    await w.find('select').setValue('40')
    expect(w.emitted('update:page')).toEqual([[3], [1], [10]])
    expect(w.emitted('update:pageCount')).toEqual([[40]])
  })

  it('disables previous on the first page, next on the last, and everything while loading', () => {
    const first = mount(KitTablePagination, { props: { page: 1, pageCount: 10, totalItems: 10 } })
    expect(first.find('[aria-label="Previous page"]').attributes('disabled')).toBeDefined()
    expect(first.find('[aria-label="Next page"]').attributes('disabled')).toBeDefined()
    const loading = mount(KitTablePagination, { props: { page: 2, pageCount: 10, totalItems: 95, loading: true } })
    expect(loading.find('select').attributes('disabled')).toBeDefined()
    expect(loading.find('[aria-label="Next page"]').attributes('disabled')).toBeDefined()
  })
})

describe('KitTableActions', () => {
  it('disables delete with no selection and styles it neutral', () => {
    const w = mount(KitTableActions, { props: { selectedRows: [], collection: 'shopProducts' } })
    const b = w.find('[data-kit-delete]')
    expect(b.attributes('disabled')).toBeDefined()
    expect(b.attributes('data-color')).toBe('neutral')
    expect(b.classes()).toContain('bg-gray-100')
    expect(w.find('[data-kit-count]').text()).toBe('0')
  })

  it('shows the selected count and styles delete as an error when rows are selected', () => {
    const w = mount(KitTableActions, { props: { selectedRows: [{ id: 'a' }, { id: 'b' }], collection: 'shopProducts' } })
    const b = w.find('[data-kit-delete]')
    expect(b.attributes('disabled')).toBeUndefined()
    expect(b.attributes('data-color')).toBe('error')
    expect(b.classes()).toContain('bg-red-600')
    expect(w.find('[data-kit-count]').text()).toBe('2')
  })

  it('emits delete with the selected ids when onDelete is given', async () => {
    const onDelete = vi.fn()
    const w = mountWithKit(KitTableActions, { props: { selectedRows: [{ id: 'a' }, { id: 'b' }], collection: 'shopProducts', onDelete } })
    await w.find('[data-kit-delete]').trigger('click')
    expect(onDelete).toHaveBeenCalledWith(['a', 'b'])
    expect(w.emitted('delete')).toEqual([[['a', 'b']]])
    expect(w.kit.forms.state.action).toBeUndefined()
  })

  it('opens the delete form for the selected ids without onDelete', async () => {
    const w = mountWithKit(KitTableActions, { props: { selectedRows: [{ id: 'a' }, { id: 'b' }], collection: 'shopProducts' } })
    await w.find('[data-kit-delete]').trigger('click')
    expect(w.kit.forms.state).toMatchObject({ action: 'delete', collection: 'shopProducts', ids: ['a', 'b'], loading: 'delete_open' })
  })

  it('lists only the columns that can be hidden in the column visibility menu', () => {
    const w = mount(KitTable, {
      props: {
        columns: [
          { accessorKey: 'title', header: 'Title' },
          { accessorKey: 'sku', header: 'SKU', enableHiding: false },
        ],
        rows: [],
        collection: 'shopProducts',
      },
    })
    expect(w.findAll('[data-kit-columns] input').map((i) => i.attributes('data-kit-column'))).toEqual([
      'title',
      'createdBy',
      'createdAt',
      'updatedBy',
      'updatedAt',
    ])
  })

  it('hides a column from the menu and emits update:columnVisibility and onColumnVisibilityChange', async () => {
    const onColumnVisibilityChange = vi.fn()
    const table = mount(KitTable, { props: { columns: [{ accessorKey: 'title', header: 'Title' }], rows: [{ id: 'a', title: 'x' }], collection: 'c' } })
    const actions = mount(KitTableActions, {
      props: { selectedRows: [], collection: 'c', table: table.vm.table, onColumnVisibilityChange },
    })
    await actions.find('input[data-kit-column="title"]').setValue(false)
    expect(actions.emitted('update:columnVisibility')).toEqual([['title', false]])
    expect(onColumnVisibilityChange).toHaveBeenCalledWith('title', false)
    await nextTick()
    expect(table.find('th[data-kit-column="title"]').exists()).toBe(false)
  })
})

describe('KitTableCheckbox', () => {
  it('shows true, false and indeterminate', () => {
    for (const [value, checked, aria] of [
      [true, true, 'true'],
      [false, false, 'false'],
      ['indeterminate', false, 'mixed'],
    ] as const) {
      const el = mount(KitTableCheckbox, { props: { modelValue: value } }).find('input').element as HTMLInputElement
      expect(el.checked, String(value)).toBe(checked)
      expect(el.indeterminate, String(value)).toBe(value === 'indeterminate')
      expect(el.getAttribute('aria-checked'), String(value)).toBe(aria)
    }
  })

  it('emits update:modelValue with the new state, true from indeterminate', async () => {
    const off = mount(KitTableCheckbox, { props: { modelValue: false } })
    await off.find('input').setValue(true)
    expect(off.emitted('update:modelValue')).toEqual([[true]])
    const on = mount(KitTableCheckbox, { props: { modelValue: true } })
    await on.find('input').setValue(false)
    expect(on.emitted('update:modelValue')).toEqual([[false]])
    const mixed = mount(KitTableCheckbox, { props: { modelValue: 'indeterminate' } })
    await mixed.find('input').trigger('change')
    expect(mixed.emitted('update:modelValue')).toEqual([[true]])
  })
})
