// @vitest-environment happy-dom
import { flushPromises, mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { defineComponent, h, nextTick, watch } from 'vue'
import { KitForm, KitFormContainer, KitFormField, KitFormHost, KitItemCardMini, KitReferenceSelect, type FormField, type LoadingState } from '../../src/index'
import { unique } from '../harness'
import { clientAs, mountWithKit, waitFor } from './mount'

const acme = () => clientAs('ann').team('acme')

describe('KitReferenceSelect', () => {
  it('fetches the id/title options of the collection', async () => {
    const tag = unique('ref')
    const cat = await acme().collection('shopCategories').create({ title: `${tag} Lamps` })
    const w = mountWithKit(KitReferenceSelect, { props: { collection: 'shopCategories', label: 'Category' } })
    await waitFor(() => expect(w.findAll('option').map((o) => o.text())).toContain(`${tag} Lamps`))
    const opt = w.findAll('option').find((o) => o.text() === `${tag} Lamps`)!
    expect(opt.attributes('value')).toBe(cat.id)
    expect(w.find('label').text()).toBe('Category')
  })

  it('shows no options when the items lack title', async () => {
    await acme().collection('testNotes').create({ body: 'no title here' })
    const w = mountWithKit(KitReferenceSelect, { props: { collection: 'testNotes' } })
    await waitFor(() => expect(w.find('select').attributes('aria-busy')).toBe('false'))
    expect(w.find('[data-kit-error]').exists()).toBe(false)
    expect(w.findAll('option').map((o) => o.attributes('value'))).toEqual([''])
  })

  it('emits the chosen id, and null for the empty option', async () => {
    const tag = unique('pick')
    const cat = await acme().collection('shopCategories').create({ title: `${tag} Desks` })
    const w = mountWithKit(KitReferenceSelect, { props: { collection: 'shopCategories', modelValue: null } })
    await waitFor(() => expect(w.find(`option[value="${cat.id}"]`).exists()).toBe(true))
    await w.find('select').setValue(cat.id)
    await w.find('select').setValue('')
    expect(w.emitted('update:modelValue')).toEqual([[cat.id], [null]])
  })
})

describe('KitItemCardMini', () => {
  it('shows a skeleton while loading, then the title', async () => {
    const tag = unique('mini')
    const p = await acme().collection('shopProducts').create({ title: `${tag} Lamp`, price: '1' })
    const w = mountWithKit(KitItemCardMini, { props: { id: p.id, collection: 'shopProducts' } })
    expect(w.find('[data-kit-skeleton]').exists()).toBe(true)
    await waitFor(() => expect(w.find('[data-kit-title]').text()).toBe(`${tag} Lamp`))
    expect(w.find('[data-kit-skeleton]').exists()).toBe(false)
  })

  it('shows an error label when the item cannot be read', async () => {
    const w = mountWithKit(KitItemCardMini, { props: { id: '01a20000-0000-7000-8000-000000000000', collection: 'shopProducts' } })
    await waitFor(() => expect(w.find('[data-kit-error]').text()).toBe('Not found'))
    // Another team's record reads like a missing one.
    const gus = await clientAs('gus').team('globex').collection('shopProducts').create({ title: 'Globex only', price: '1' })
    const other = mountWithKit(KitItemCardMini, { props: { id: gus.id, collection: 'shopProducts' } })
    await waitFor(() => expect(other.find('[data-kit-error]').text()).toBe('Not found'))
    expect(other.text()).not.toContain('Globex only')
  })
})

describe('KitFormField', () => {
  const field = (type: FormField['type'], extra: Partial<FormField> = {}): FormField => ({ name: 'f', type, label: 'F', ...extra })

  it('renders one input per field type and emits its value', async () => {
    const cases: Array<{ type: FormField['type']; selector: string; act: (el: ReturnType<ReturnType<typeof mount>['find']>) => Promise<void>; want: unknown }> = [
      { type: 'string', selector: 'input[type="text"]', act: (e) => e.setValue('abc'), want: 'abc' },
      { type: 'text', selector: 'textarea', act: (e) => e.setValue('long text'), want: 'long text' },
      { type: 'number', selector: 'input[type="number"]', act: (e) => e.setValue('12.5'), want: 12.5 },
      { type: 'decimal', selector: 'input[inputmode="decimal"]', act: (e) => e.setValue('9.90'), want: '9.90' },
      { type: 'boolean', selector: 'input[type="checkbox"]', act: (e) => e.setValue(true), want: true },
      { type: 'date', selector: 'input[type="date"]', act: (e) => e.setValue('2026-05-01'), want: '2026-05-01' },
      { type: 'json', selector: 'textarea.font-mono', act: (e) => e.setValue('{"w": 3}'), want: { w: 3 } },
    ]
    for (const c of cases) {
      const w = mount(KitFormField, { props: { field: field(c.type) } })
      const el = w.find(c.selector)
      expect(el.exists(), c.type).toBe(true)
      await c.act(el)
      expect(w.emitted('update:modelValue')?.at(-1), c.type).toEqual([c.want])
    }
  })

  it('a decimal carries its precision and scale', () => {
    const w = mount(KitFormField, { props: { field: field('decimal', { precision: 10, scale: 2 }), modelValue: '9.90' } })
    const input = w.find('input')
    expect(input.attributes('data-kit-precision')).toBe('10')
    expect(input.attributes('data-kit-scale')).toBe('2')
    expect(input.attributes('step')).toBe('0.01')
    expect(input.attributes('placeholder')).toBe('0.00')
    expect(w.text()).toContain('Up to 10 digits, 2 after the point')
  })

  it('an integer number steps by whole numbers; a plain number takes any value', () => {
    const whole = mount(KitFormField, { props: { field: field('number', { integer: true }), modelValue: 3 } })
    expect(whole.find('input').attributes('step')).toBe('1')
    expect(whole.find('input').attributes('inputmode')).toBe('numeric')
    const any = mount(KitFormField, { props: { field: field('number'), modelValue: 2.5 } })
    expect(any.find('input').attributes('step')).toBe('any')
    expect(any.find('input').attributes('inputmode')).toBeUndefined()
  })

  it('json that does not parse is not emitted and says so', async () => {
    const w = mount(KitFormField, { props: { field: field('json') } })
    await w.find('textarea').setValue('{"w": ')
    expect(w.emitted('update:modelValue')).toBeUndefined()
    await w.find('textarea').trigger('focusout')
    expect(w.find('[data-kit-error]').text()).toBe('F is not valid JSON yet: check its quotes, commas and brackets.')
    expect((w.find('textarea').element as HTMLTextAreaElement).value).toBe('{"w": ')
  })

  it('an array edits a list of values, a repeater a list of objects', async () => {
    const arr = mount(KitFormField, { props: { field: field('array'), modelValue: ['red'] } })
    await arr.find('[data-kit-add]').trigger('click')
    expect(arr.emitted('update:modelValue')?.at(-1)).toEqual([['red', '']])
    await arr.find('[data-kit-entry] input').setValue('blue')
    expect(arr.emitted('update:modelValue')?.at(-1)).toEqual([['blue', '']])
    await arr.find('[data-kit-remove]').trigger('click')
    expect(arr.emitted('update:modelValue')?.at(-1)).toEqual([['']])

    const rep = mount(KitFormField, { props: { field: field('repeater'), modelValue: [{ size: 'S' }] } })
    await rep.find('[data-kit-entry] textarea').setValue('{"size": "M"}')
    expect(rep.emitted('update:modelValue')?.at(-1)).toEqual([[{ size: 'M' }]])
    await rep.find('[data-kit-remove]').trigger('click')
    expect(rep.emitted('update:modelValue')?.at(-1)).toEqual([[]])
  })

  it('a new repeater item starts empty and keeps the JSON typed into it, as typed', async () => {
    const w = mount(KitFormField, { props: { field: field('repeater', { label: 'Variants' }), modelValue: null } })
    await w.find('[data-kit-add]').trigger('click')
    const area = w.find('[data-kit-entry] textarea')
    expect((area.element as HTMLTextAreaElement).value).toBe('')
    await area.setValue('{"size": "XL"}')
    expect(w.emitted('update:modelValue')?.at(-1)).toEqual([[{ size: 'XL' }]])
    await w.setProps({ modelValue: [{ size: 'XL' }] })
    expect((w.find('[data-kit-entry] textarea').element as HTMLTextAreaElement).value).toBe('{"size": "XL"}')
  })

  it('a repeater item that is not a JSON object keeps its text and says what is wrong once left', async () => {
    const w = mount(KitFormField, { props: { field: field('repeater', { label: 'Variants' }), modelValue: [{ size: 'S' }] } })
    const area = w.find('[data-kit-entry] textarea')
    await area.setValue('{"size": "XL"')
    expect(w.find('[data-kit-error]').exists()).toBe(false)
    await area.trigger('focusout')
    expect(w.find('[data-kit-error]').text()).toBe('Variants item 1 is not valid JSON yet: check its quotes, commas and brackets.')
    expect((area.element as HTMLTextAreaElement).value).toBe('{"size": "XL"')
    expect(area.attributes('aria-invalid')).toBe('true')
    await area.setValue('[1]')
    expect(w.find('[data-kit-error]').text()).toBe('Variants item 1 must be a JSON object, such as {"size": "XL"}.')
    expect(w.emitted('update:modelValue')).toBeUndefined()
  })

  it('a repeater whose item fields are known edits each item as a small form', async () => {
    const items: FormField[] = [
      { name: 'size', type: 'string', label: 'Size' },
      { name: 'stock', type: 'number', label: 'Stock', integer: true },
    ]
    const w = mount(KitFormField, { props: { field: field('repeater', { label: 'Variants', itemFields: items }), modelValue: [{ size: 'S', stock: 1 }] } })
    expect(w.findAll('[data-kit-item-form] [data-kit-field]').map((f) => f.attributes('data-kit-field'))).toEqual(['size', 'stock'])
    expect((w.find('#kit-field-f-0-size').element as HTMLInputElement).value).toBe('S')
    await w.find('[data-kit-add]').trigger('click')
    expect(w.emitted('update:modelValue')?.at(-1)).toEqual([[{ size: 'S', stock: 1 }, { size: null, stock: null }]])
    await w.find('#kit-field-f-1-size').setValue('XL')
    await w.find('#kit-field-f-1-stock').setValue('4')
    expect(w.emitted('update:modelValue')?.at(-1)).toEqual([[{ size: 'S', stock: 1 }, { size: 'XL', stock: 4 }]])
  })

  it('an array keeps each value as typed, as text', async () => {
    const w = mount(KitFormField, { props: { field: field('array'), modelValue: [] } })
    await w.find('[data-kit-add]').trigger('click')
    await w.find('[data-kit-entry] input').setValue('42')
    expect(w.emitted('update:modelValue')?.at(-1)).toEqual([['42']])
  })


  it('a decimal with more digits than its scale allows says so in words', async () => {
    const w = mount(KitFormField, {
      props: { field: field('decimal', { label: 'Price', precision: 6, scale: 2 }), 'onUpdate:modelValue': (v: unknown) => w.setProps({ modelValue: v }) },
    })
    const input = w.find('input')
    await input.setValue('12.345')
    await input.trigger('focusout')
    expect(w.find('[data-kit-error]').text()).toBe('Price must have at most 2 digits after the point.')
    expect((input.element as HTMLInputElement).value).toBe('12.345')
    await input.setValue('123456.5')
    expect(w.find('[data-kit-error]').text()).toBe('Price must have at most 4 digits before the point.')
    await input.setValue('12.5')
    expect(w.find('[data-kit-error]').exists()).toBe(false)
  })

  it('image and file are URL fields with a preview', () => {
    const img = mount(KitFormField, { props: { field: field('image', { label: 'Image' }), modelValue: 'https://x.test/a.png' } })
    expect(img.find('img[data-kit-preview]').attributes('src')).toBe('https://x.test/a.png')
    expect(img.find('img').attributes('alt')).toBe('Image preview')
    const file = mount(KitFormField, { props: { field: field('file'), modelValue: 'https://x.test/docs/m.pdf' } })
    expect(file.find('a[data-kit-preview]').attributes('href')).toBe('https://x.test/docs/m.pdf')
    expect(file.find('a').text()).toBe('m.pdf')
    expect(mount(KitFormField, { props: { field: field('image') } }).find('[data-kit-preview]').exists()).toBe(false)
  })

  it('a reference field is a KitReferenceSelect of its target', async () => {
    const w = mountWithKit(KitFormField, { props: { field: field('string', { refTarget: 'shopCategories' }) } })
    expect(w.findComponent(KitReferenceSelect).props('collection')).toBe('shopCategories')
    await flushPromises()
  })

  it('marks a required field and shows the server message for the field', () => {
    const w = mount(KitFormField, { props: { field: field('string', { required: true, label: 'Title' }), error: 'is required' } })
    expect(w.find('label').text()).toBe('Title*')
    expect(w.find('[data-kit-required]').exists()).toBe(true)
    expect(w.find('input').attributes('aria-required')).toBe('true')
    expect(w.find('input').attributes('aria-invalid')).toBe('true')
    expect(w.find('[role="alert"]').text()).toBe('Title is required.')
    expect(w.find('input').attributes('aria-describedby')).toBe(w.find('[role="alert"]').attributes('id'))
    const optional = mount(KitFormField, { props: { field: field('string', { label: 'SKU' }) } })
    expect(optional.find('[data-kit-required]').exists()).toBe(false)
    expect(optional.find('[role="alert"]').exists()).toBe(false)
  })

  it('an image or file field links its server message and its limits to its file input', () => {
    for (const type of ['image', 'file'] as const) {
      const w = mount(KitFormField, { props: { field: field(type, { required: true }), error: 'is wrong' } })
      const control = w.find('#kit-field-f')
      expect(control.attributes('type'), type).toBe('file')
      expect(control.attributes('aria-invalid'), type).toBe('true')
      expect(control.attributes('aria-required'), type).toBe('true')
      expect(control.attributes('aria-describedby'), type).toBe(`${w.find('[role="alert"]').attributes('id')} kit-field-f-limits`)
    }
  })

  it('every text-like field type links its server message to its control', () => {
    for (const type of ['string', 'text', 'number', 'decimal', 'date', 'json'] as const) {
      const w = mount(KitFormField, { props: { field: field(type, { required: true }), error: 'is wrong' } })
      expect(w.find('[role="alert"]').text(), type).toBe('F is wrong.')
      const control = w.find('#kit-field-f')
      expect(control.exists(), type).toBe(true)
      expect(control.attributes('aria-invalid'), type).toBe('true')
      expect(control.attributes('aria-required'), type).toBe('true')
      expect(control.attributes('aria-describedby'), type).toBe(w.find('[role="alert"]').attributes('id'))
      expect(control.classes(), type).toContain('border-red-500')
    }
  })
})

describe('KitForm', () => {
  it('is generated from the collection schema: one input per field, in order, required marked', async () => {
    const w = mountWithKit(KitForm, { props: { collection: 'shopProducts', action: 'create' } })
    await waitFor(() => expect(w.findAll('[data-kit-field]').length).toBeGreaterThan(0))
    expect(w.findAll('[data-kit-field]').map((f) => `${f.attributes('data-kit-field')}:${f.attributes('data-kit-type')}`)).toEqual([
      'title:string',
      'sku:string',
      'description:text',
      'price:decimal',
      'stock:number',
      'isActive:boolean',
      'releasedAt:date',
      'tags:array',
      'dimensions:json',
      'variants:repeater',
      'image:image',
      'manual:file',
      'categoryId:string',
    ])
    expect(w.findAll('[data-kit-required]').map((r) => r.element.closest('[data-kit-field]')!.getAttribute('data-kit-field'))).toEqual(['title', 'price'])
    expect(w.find('[data-kit-field="categoryId"]').findComponent(KitReferenceSelect).exists()).toBe(true)
    // The stock is an integer number in the example schema: its input steps by whole numbers.
    expect(w.find('[data-kit-field="stock"] input').attributes('step')).toBe('1')
    // Defaults from the schema fill a create form.
    expect((w.find('[data-kit-field="price"] input').element as HTMLInputElement).value).toBe('0.00')
    expect((w.find('[data-kit-field="isActive"] input').element as HTMLInputElement).checked).toBe(true)
  })

  it('create submits the fields that are set; update submits only the changed fields', async () => {
    const fields: FormField[] = [
      { name: 'title', type: 'string', label: 'Title', required: true },
      { name: 'stock', type: 'number', label: 'Stock', default: 0 },
      { name: 'sku', type: 'string', label: 'SKU' },
    ]
    const create = mount(KitForm, { props: { collection: 'shopProducts', action: 'create', fields } })
    await create.find('[data-kit-field="title"] input').setValue('Lamp')
    await create.find('form').trigger('submit')
    expect(create.emitted('submit')).toEqual([[{ title: 'Lamp', stock: 0 }]])

    const update = mount(KitForm, { props: { collection: 'shopProducts', action: 'update', fields, item: { id: 'p1', title: 'Lamp', stock: 3, sku: 'L-1' } } })
    await update.find('[data-kit-field="stock"] input').setValue('4')
    await update.find('[data-kit-field="sku"] input').setValue('')
    await update.find('form').trigger('submit')
    expect(update.emitted('submit')).toEqual([[{ stock: 4, sku: null }]])
  })

  it('a create form starts from its item and sends the values that are not fields as they are', async () => {
    const fields: FormField[] = [
      { name: 'title', type: 'string', label: 'Title', required: true },
      { name: 'sku', type: 'string', label: 'SKU' },
    ]
    const w = mount(KitForm, { props: { collection: 'shopCategories', action: 'create', fields, item: { id: '', parentId: 'p1', sku: 'S-1' } } })
    expect((w.find('[data-kit-field="sku"] input').element as HTMLInputElement).value).toBe('S-1')
    await w.find('[data-kit-field="title"] input').setValue('Saws')
    await w.find('form').trigger('submit')
    expect(w.emitted('submit')).toEqual([[{ title: 'Saws', sku: 'S-1', parentId: 'p1' }]])
  })

  it('shows a skeleton while <action>_open, a busy submit while <action>_send, and a read-only view', async () => {
    const fields: FormField[] = [{ name: 'title', type: 'string', label: 'Title' }]
    const w = mount(KitForm, { props: { collection: 'c', action: 'update', fields, item: { id: 'x', title: 'T' }, loading: 'update_open' as LoadingState } })
    expect(w.find('[data-kit-skeleton]').exists()).toBe(true)
    expect(w.find('[data-kit-submit]').attributes('disabled')).toBeDefined()
    await w.setProps({ loading: 'update_send' })
    expect(w.find('[data-kit-skeleton]').exists()).toBe(false)
    expect(w.find('[data-kit-submit]').text()).toBe('Saving…')
    expect(w.find('[data-kit-submit]').attributes('disabled')).toBeDefined()
    await w.setProps({ loading: 'notLoading' })
    expect(w.find('[data-kit-submit]').text()).toBe('Save')
    expect(w.find('[data-kit-submit]').attributes('disabled')).toBeUndefined()

    const view = mount(KitForm, { props: { collection: 'c', action: 'view', fields, item: { id: 'x', title: 'T' } } })
    expect(view.find('input').attributes('readonly')).toBeDefined()
    expect(view.find('[data-kit-submit]').exists()).toBe(false)
    expect(view.find('[data-kit-cancel]').text()).toBe('Close')
  })

  it('a field that shows an error blocks the submit, says which, and focuses it', async () => {
    const fields: FormField[] = [
      { name: 'title', type: 'string', label: 'Title' },
      { name: 'variants', type: 'repeater', label: 'Variants' },
    ]
    const w = mount(KitForm, { props: { collection: 'c', action: 'create', fields }, attachTo: document.body })
    await w.find('[data-kit-field="title"] input').setValue('Lamp')
    await w.find('[data-kit-add]').trigger('click')
    await w.find('form').trigger('submit')
    await nextTick()
    expect(w.emitted('submit')).toBeUndefined()
    expect(w.find('[data-kit-blocked]').text()).toBe('Not saved: Variants item 1 is empty: type a JSON object such as {"size": "XL"}, or remove it.')
    expect(document.activeElement?.id).toBe('kit-field-variants-0')
    await w.find('[data-kit-entry] textarea').setValue('{"size": "XL"}')
    expect(w.find('[data-kit-blocked]').exists()).toBe(false)
    await w.find('form').trigger('submit')
    expect(w.emitted('submit')).toEqual([[{ title: 'Lamp', variants: [{ size: 'XL' }] }]])
  })

  it('a delete form asks to confirm the ids', async () => {
    const w = mount(KitForm, { props: { collection: 'c', action: 'delete', fields: [], ids: ['a', 'b'] } })
    expect(w.find('[data-kit-confirm]').text()).toBe('Delete 2 items? This cannot be undone.')
    await w.find('form').trigger('submit')
    expect(w.emitted('submit')).toEqual([[{ ids: ['a', 'b'] }]])
  })
})

describe('KitFormContainer', () => {
  it('renders slideover (the default), modal, dialog and inline containers; Escape closes the floating ones', async () => {
    for (const [container, role] of [
      [undefined, 'dialog'],
      ['modal', 'dialog'],
      ['dialog', 'alertdialog'],
      ['inline', null],
    ] as const) {
      const w = mount(KitFormContainer, { props: container ? { container, title: 'T' } : { title: 'T' }, slots: { default: () => h('p', 'body') }, attachTo: document.body })
      expect(w.find('[data-kit-container]').attributes('data-kit-container')).toBe(container ?? 'slideover')
      expect(w.find('[role="dialog"], [role="alertdialog"]').exists() ? w.find('[aria-modal]').attributes('role') : null).toBe(role)
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }))
      expect(w.emitted('close')?.length ?? 0, String(container)).toBe(container === 'inline' ? 0 : 1)
      w.unmount()
    }
  })
})

describe('KitFormHost', () => {
  function trackLoading(w: ReturnType<typeof mountWithKit>): LoadingState[] {
    const seen: LoadingState[] = [w.kit.forms.state.loading]
    watch(
      () => w.kit.forms.state.loading,
      (l) => void seen.push(l),
      { flush: 'sync' },
    )
    return seen
  }

  it('opens the create form in the collection container, goes create_open, create_send, and closes when saved', async () => {
    const tag = unique('host')
    const w = mountWithKit(KitFormHost, {})
    const seen = trackLoading(w)
    w.kit.forms.open('create', 'shopProducts')
    await waitFor(() => expect(w.find('[data-kit-field="title"] input').exists()).toBe(true))
    expect(w.find('[data-kit-container]').attributes('data-kit-container')).toBe('slideover')
    expect(w.find('[aria-modal]').attributes('aria-label')).toBe('Create Product')
    await w.find('[data-kit-field="title"] input').setValue(`${tag} Lamp`)
    await w.find('[data-kit-field="price"] input').setValue('12.50')
    await w.find('form').trigger('submit')
    await waitFor(() => expect(w.emitted('saved')).toHaveLength(1))
    expect(seen).toEqual(['notLoading', 'create_open', 'notLoading', 'create_send', 'notLoading'])
    expect(w.kit.forms.state.action).toBeUndefined()
    expect(w.find('[data-kit-container]').exists()).toBe(false)
    const page = await acme().collection('shopProducts').list({ search: tag })
    expect(page.items.map((p) => [p.title, p.price])).toEqual([[`${tag} Lamp`, '12.50']])
  })

  it("shows the server's validation message per field, keeps the form open, and writes nothing", async () => {
    const tag = unique('bad')
    const w = mountWithKit(KitFormHost, {})
    w.kit.forms.open('create', 'shopProducts')
    await waitFor(() => expect(w.find('[data-kit-field="sku"] input').exists()).toBe(true))
    await w.find('[data-kit-field="sku"] input').setValue(tag)
    await w.find('form').trigger('submit')
    await waitFor(() => expect(w.kit.forms.state.error?.status).toBe(400))
    const fieldsData = (w.kit.forms.state.error?.data as { fields: Record<string, string> }).fields
    expect(fieldsData).toEqual({ title: 'is required' })
    expect(w.find('[data-kit-field="title"] [role="alert"]').text()).toBe('Title is required.')
    expect(w.find('[data-kit-message]').text()).toBe('Not saved: one field needs your attention, see below.')
    expect(w.find('[data-kit-field="sku"] [role="alert"]').exists()).toBe(false)
    expect(w.find('[data-kit-field="price"] [role="alert"]').exists()).toBe(false)
    expect(w.kit.forms.state).toMatchObject({ action: 'create', loading: 'notLoading' })
    expect((await acme().collection('shopProducts').list({ search: tag })).items).toEqual([])
  })

  it('the footer slot shows under the open form, with its action, collection and item', async () => {
    const w = mountWithKit(KitFormHost, {
      slots: { footer: `<template #footer="{ action, collection, item }"><p data-test="footer">{{ action }} {{ collection }} {{ item?.parentId }}</p></template>` },
    })
    expect(w.find('[data-test="footer"]').exists()).toBe(false)
    w.kit.forms.open('create', 'shopProducts', { item: { id: '', parentId: 'p9' } })
    await waitFor(() => expect(w.find('[data-test="footer"]').text()).toBe('create shopProducts p9'))
    expect(w.kit.forms.state.ids).toEqual([])
  })

  it('opens each collection in its configured container: modal, dialog, inline', async () => {
    for (const container of ['modal', 'dialog', 'inline'] as const) {
      const w = mountWithKit(KitFormHost, {}, { collections: { testNotes: { name: 'notes', container } } })
      w.kit.forms.open('create', 'testNotes')
      await waitFor(() => expect(w.find('[data-kit-container]').attributes('data-kit-container')).toBe(container))
      w.unmount()
    }
  })

  it('an update form loads the record (update_open), then saves only the changed fields (update_send)', async () => {
    const tag = unique('upd')
    const p = await acme().collection('shopProducts').create({ title: `${tag} Desk`, price: '3', sku: `${tag}-sku` })
    const w = mountWithKit(KitFormHost, {})
    const seen = trackLoading(w)
    w.kit.forms.open('update', 'shopProducts', { ids: [p.id] })
    expect(w.kit.forms.state.loading).toBe('update_open')
    await nextTick()
    expect(w.find('[data-kit-skeleton]').exists()).toBe(true)
    await waitFor(() => expect((w.find('[data-kit-field="title"] input').element as HTMLInputElement | undefined)?.value).toBe(`${tag} Desk`))
    await w.find('[data-kit-field="title"] input').setValue(`${tag} Desk 2`)
    await w.find('form').trigger('submit')
    await waitFor(() => expect(w.emitted('saved')).toHaveLength(1))
    expect(seen).toEqual(['notLoading', 'update_open', 'notLoading', 'update_send', 'notLoading'])
    const after = await acme().collection('shopProducts').item(p.id, { force: true })
    expect([after.title, after.sku, after.price]).toEqual([`${tag} Desk 2`, `${tag}-sku`, '3.00'])
  })

  it('a delete form deletes the selected ids (delete_open, delete_send)', async () => {
    const tag = unique('delf')
    const products = acme().collection('shopProducts')
    const a = await products.create({ title: `${tag} A`, price: '1' })
    const b = await products.create({ title: `${tag} B`, price: '1' })
    const w = mountWithKit(KitFormHost, {})
    const seen = trackLoading(w)
    w.kit.forms.open('delete', 'shopProducts', { ids: [a.id, b.id] })
    await waitFor(() => expect(w.find('[data-kit-confirm]').text()).toContain('Delete these 2 items? This cannot be undone.'))
    expect(w.findAll('[data-kit-confirm-names] li').map((li) => li.text())).toEqual([`${tag} A`, `${tag} B`])
    await w.find('form').trigger('submit')
    await waitFor(() => expect(w.emitted('saved')).toHaveLength(1))
    expect(w.emitted('saved')![0]).toEqual([{ action: 'delete', collection: 'shopProducts', ids: [a.id, b.id], names: [`${tag} A`, `${tag} B`] }])
    expect(seen).toEqual(['notLoading', 'delete_open', 'notLoading', 'delete_send', 'notLoading'])
    expect((await products.list({ search: tag })).items).toEqual([])
  })
})

// Conditional saves: ETag, If-Match and 412 (issue 16, item 3.5).
describe('KitFormHost conditional saves', () => {
  it('a stale edit shows the conflict with the stored record instead of overwriting it, and saves after loading the current version', async () => {
    const tag = unique('stale')
    const products = acme().collection('shopProducts')
    const p = await products.create({ title: `${tag} Lamp`, price: '1' })
    const w = mountWithKit(KitFormHost, {})
    w.kit.forms.open('update', 'shopProducts', { ids: [p.id] })
    await waitFor(() => expect((w.find('[data-kit-field="title"] input').element as HTMLInputElement | undefined)?.value).toBe(`${tag} Lamp`))
    // Someone else saves first.
    await products.update(p.id, { title: `${tag} Their lamp` })
    await w.find('[data-kit-field="title"] input').setValue(`${tag} My lamp`)
    await w.find('form').trigger('submit')
    await waitFor(() => expect(w.find('[data-kit-conflict]').exists()).toBe(true))
    expect(w.find('[data-kit-current="title"]').text()).toBe(`title: ${tag} Their lamp`)
    expect(w.kit.forms.state).toMatchObject({ action: 'update', loading: 'notLoading' })
    expect((await products.item(p.id, { force: true })).title).toBe(`${tag} Their lamp`)

    await w.find('[data-kit-reload]').trigger('click')
    await waitFor(() => expect((w.find('[data-kit-field="title"] input').element as HTMLInputElement).value).toBe(`${tag} Their lamp`))
    expect(w.find('[data-kit-conflict]').exists()).toBe(false)
    await w.find('[data-kit-field="title"] input').setValue(`${tag} Our lamp`)
    await w.find('form').trigger('submit')
    await waitFor(() => expect(w.emitted('saved')).toHaveLength(1))
    expect((await products.item(p.id, { force: true })).title).toBe(`${tag} Our lamp`)
  })

  it('saving mine over a conflict overwrites only the version the conflict showed: a third writer in between is refused again', async () => {
    const tag = unique('over')
    const products = acme().collection('shopProducts')
    const p = await products.create({ title: `${tag} Lamp`, price: '1' })
    const w = mountWithKit(KitFormHost, {})
    w.kit.forms.open('update', 'shopProducts', { ids: [p.id] })
    await waitFor(() => expect((w.find('[data-kit-field="title"] input').element as HTMLInputElement | undefined)?.value).toBe(`${tag} Lamp`))
    await products.update(p.id, { title: `${tag} Theirs 1` })
    await w.find('[data-kit-field="title"] input').setValue(`${tag} Mine`)
    await w.find('form').trigger('submit')
    await waitFor(() => expect(w.find('[data-kit-overwrite]').exists()).toBe(true))

    // A third writer saves after the conflict was shown: "save mine" is refused again.
    await products.update(p.id, { title: `${tag} Theirs 2` })
    await w.find('[data-kit-overwrite]').trigger('click')
    await waitFor(() => expect(w.find('[data-kit-current="title"]').exists() && w.find('[data-kit-current="title"]').text()).toBe(`title: ${tag} Theirs 2`))
    expect((await products.item(p.id, { force: true })).title).toBe(`${tag} Theirs 2`)
    expect(w.emitted('saved')).toBeUndefined()

    // Over the version now shown, mine is saved.
    await w.find('[data-kit-overwrite]').trigger('click')
    await waitFor(() => expect(w.emitted('saved')).toHaveLength(1))
    expect((await products.item(p.id, { force: true })).title).toBe(`${tag} Mine`)
    expect(w.kit.forms.state.action).toBeUndefined()
  })
})

// The registry's componentName and dependentFieldComponents, with
// components the app registered (issue 50, item 3).
describe('registered form components', () => {
  const NoteForm = defineComponent({
    props: { collection: String, action: String, item: Object, loading: String },
    emits: ['submit', 'cancel'],
    setup(props, { emit }) {
      return () =>
        h('div', { 'data-test': 'note-form' }, [
          h('p', { 'data-test': 'note-form-props' }, `${props.action} ${props.collection} ${props.loading}`),
          h('button', { type: 'button', 'data-test': 'note-form-save', onClick: () => emit('submit', { body: 'from the registered form' }) }, 'Save'),
        ])
    },
  })
  const BodyPicker = defineComponent({
    props: { modelValue: { type: null, default: null }, field: Object, values: Object },
    emits: ['update:modelValue'],
    setup(props, { emit }) {
      return () =>
        h('div', [
          h('span', { 'data-test': 'picker-label' }, (props.field as FormField).label),
          h('button', { type: 'button', 'data-test': 'pick-blue', onClick: () => emit('update:modelValue', 'blue') }, 'Blue'),
          h('output', { 'data-test': 'picker-value' }, String(props.modelValue)),
        ])
    },
  })
  const notesFields = [{ name: 'body', type: 'string', label: 'Body' }]

  it('KitFormHost renders the component registered under componentName and saves what it submits', async () => {
    const w = mountWithKit(
      KitFormHost,
      { global: { components: { NoteForm } } },
      { collections: { testNotes: { name: 'notes', fields: notesFields, componentName: 'NoteForm' } } },
    )
    w.kit.forms.open('create', 'testNotes')
    await waitFor(() => expect(w.find('[data-test=note-form-props]').text()).toBe('create testNotes notLoading'))
    expect(w.find('[data-kit-form]').exists()).toBe(false)
    await w.find('[data-test=note-form-save]').trigger('click')
    await waitFor(() => expect(w.emitted('saved')).toHaveLength(1))
    const saved = (w.emitted('saved')![0] as [{ record: { id: string; body: string } }])[0]
    expect(saved.record.body).toBe('from the registered form')
    expect((await acme().collection('testNotes').item(saved.record.id)).body).toBe('from the registered form')
  })

  it('KitFormHost falls back to KitForm when no component is registered under componentName', async () => {
    const w = mountWithKit(KitFormHost, {}, { collections: { testNotes: { name: 'notes', fields: notesFields, componentName: 'Unregistered' } } })
    w.kit.forms.open('create', 'testNotes')
    await waitFor(() => expect(w.find('[data-kit-form=create] [data-kit-field=body] input').exists()).toBe(true))
  })

  it('a dependentFieldComponents entry replaces the field input with the registered component, and its value is submitted', async () => {
    const w = mountWithKit(
      KitForm,
      { props: { collection: 'testNotes', action: 'create' }, global: { components: { BodyPicker } } },
      { collections: { testNotes: { name: 'notes', fields: notesFields, dependentFieldComponents: { body: 'BodyPicker' } } } },
    )
    await waitFor(() => expect(w.find('[data-test=picker-label]').text()).toBe('Body'))
    expect(w.find('[data-kit-field=body] input').exists()).toBe(false)
    await w.find('[data-test=pick-blue]').trigger('click')
    expect(w.find('[data-test=picker-value]').text()).toBe('blue')
    await w.find('form').trigger('submit')
    expect(w.emitted('submit')).toEqual([[{ body: 'blue' }]])
  })
})
