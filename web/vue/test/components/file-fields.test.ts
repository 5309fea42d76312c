// @vitest-environment happy-dom
import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { KitFormField, type FormField } from '../../src/index'

const field = (type: FormField['type'], extra: Partial<FormField> = {}): FormField => ({ name: 'f', type, label: 'F', ...extra })

describe('KitFormField with uploaded files', () => {
  it('shows an image field’s uploaded file by its signed url, with no URL box to overwrite it', () => {
    const w = mount(KitFormField, {
      props: { field: field('image'), modelValue: { name: 'lamp.png', size: 10, contentType: 'image/png', url: '/api/x/lamp.png?sig=1', width: 1, height: 1 } },
    })
    expect(w.find('img[data-kit-preview]').attributes('src')).toBe('/api/x/lamp.png?sig=1')
    expect(w.find('a[data-kit-file]').text()).toBe('lamp.png')
    expect(w.find('input[type="url"]').exists()).toBe(false)
    expect(w.emitted('update:modelValue')).toBeUndefined()
  })

  it('lists every file of a multiple file field', () => {
    const files = ['a.pdf', 'b.pdf'].map((name) => ({ name, size: 1, contentType: 'application/pdf', url: `/api/x/${name}?sig=1` }))
    const w = mount(KitFormField, { props: { field: field('file'), modelValue: files } })
    expect(w.findAll('a[data-kit-file]').map((a) => a.text())).toEqual(['a.pdf', 'b.pdf'])
    expect(w.find('img').exists()).toBe(false)
  })

  it('keeps the URL box for a URL string', () => {
    const w = mount(KitFormField, { props: { field: field('image'), modelValue: 'https://x.test/a.png' } })
    expect(w.find('input[type="url"]').exists()).toBe(true)
    expect(w.find('[data-kit-files]').exists()).toBe(false)
  })
})
