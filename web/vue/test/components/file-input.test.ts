// @vitest-environment happy-dom
import { mount, type VueWrapper } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { nextTick } from 'vue'
import { fileChanges, KitFileInput, KitForm, type FormField, type PendingFiles } from '../../src/index'

const field = (type: 'image' | 'file', files: Partial<NonNullable<FormField['files']>> = {}, extra: Partial<FormField> = {}): FormField => ({
  name: 'photo',
  type,
  label: 'Photo',
  files: { multiple: false, maxSize: 1024, maxFiles: 1, mimeTypes: [], thumbs: [], ...files },
  ...extra,
})
const file = (name: string, size: number, type: string) => new File([new Uint8Array(size)], name, { type })
const stored = (name: string) => ({ name, size: 10, contentType: 'image/png', url: `/api/f/${name}?sig=1`, width: 1, height: 1 })

/** pick hands files to the input as the browser's file picker does, and follows its update:pending as v-model would. */
async function pick(w: VueWrapper, ...files: File[]): Promise<void> {
  const input = w.find('input[type="file"]')
  Object.defineProperty(input.element, 'files', { value: files, configurable: true })
  await input.trigger('change')
  const sent = w.emitted<[PendingFiles]>('update:pending')
  if (sent?.length) await w.setProps({ pending: sent[sent.length - 1]![0] })
}
function lastPending(w: VueWrapper): PendingFiles | undefined {
  const sent = w.emitted<[PendingFiles]>('update:pending')
  return sent?.[sent.length - 1]?.[0]
}

describe('KitFileInput', () => {
  it('shows the field’s limits before any upload: largest size, accepted types and most files', () => {
    const w = mount(KitFileInput, { props: { field: field('file', { maxSize: 2 << 20, mimeTypes: ['application/pdf'], multiple: true, maxFiles: 3 }) } })
    const text = w.find('[data-kit-file-limits]').text()
    expect(text).toContain('2 MB')
    expect(text).toContain('application/pdf')
    expect(text).toContain('At most 3 files')
    expect(w.find('input[type="file"]').attributes('accept')).toBe('application/pdf')
    expect(w.find('input[type="file"]').attributes('multiple')).toBeDefined()
  })

  it('words a single field’s limits and drop zone for one file', () => {
    const w = mount(KitFileInput, { props: { field: field('image', { maxSize: 5 << 20 }) } })
    expect(w.find('[data-kit-file-limits]').text()).toBe('Up to 5 MB; image/*')
    expect(w.find('[data-kit-dropzone]').text()).toContain('or drop it here')
    expect(w.find('input[type="file"]').attributes('multiple')).toBeUndefined()
  })

  it('takes files dropped on it as it takes picked ones', async () => {
    const w = mount(KitFileInput, { props: { field: field('file', { multiple: true, maxFiles: 2 }) } })
    const a = file('a.pdf', 10, 'application/pdf')
    await w.find('[data-kit-dropzone]').trigger('drop', { dataTransfer: { files: [a] } })
    expect(lastPending(w)).toEqual({ uploads: [a], remove: [] })
  })

  it('refuses a file larger than maxSize, naming the field, and keeps nothing', async () => {
    const w = mount(KitFileInput, { props: { field: field('file') } })
    await pick(w, file('big.pdf', 2048, 'application/pdf'))
    expect(w.find('[data-kit-file-refused]').text()).toBe('Photo: big.pdf is larger than 1 kB.')
    expect(w.emitted('update:pending')).toBeUndefined()
  })

  it('refuses a type outside mimeTypes, naming the field', async () => {
    const w = mount(KitFileInput, { props: { field: field('file', { mimeTypes: ['application/pdf'] }) } })
    await pick(w, file('notes.txt', 10, 'text/plain'))
    expect(w.find('[data-kit-file-refused]').text()).toBe('Photo: notes.txt is not one of application/pdf.')
    expect(w.emitted('update:pending')).toBeUndefined()
  })

  it('an image field refuses a file that is not an image', async () => {
    const w = mount(KitFileInput, { props: { field: field('image') } })
    await pick(w, file('a.pdf', 10, 'application/pdf'))
    expect(w.find('[data-kit-file-refused]').text()).toBe('Photo: a.pdf is not an image.')
    expect(w.emitted('update:pending')).toBeUndefined()
  })

  it('a multiple field takes several files up to maxFiles, counting the stored ones, and refuses the rest', async () => {
    const w = mount(KitFileInput, { props: { field: field('file', { multiple: true, maxFiles: 3 }), modelValue: [stored('a.pdf')] } })
    await pick(w, file('b.pdf', 10, 'application/pdf'), file('c.pdf', 10, 'application/pdf'), file('d.pdf', 10, 'application/pdf'))
    expect(lastPending(w)?.uploads.map((f) => f.name)).toEqual(['b.pdf', 'c.pdf'])
    expect(w.find('[data-kit-file-refused]').text()).toBe('Photo takes at most 3 files.')
    expect(w.findAll('[data-kit-picked-file]').map((li) => li.attributes('data-kit-picked-file'))).toEqual(['b.pdf', 'c.pdf'])
  })

  it('a single field’s picked file replaces the one picked before and hides the stored one', async () => {
    const w = mount(KitFileInput, { props: { field: field('image'), modelValue: stored('old.png') } })
    await pick(w, file('one.png', 10, 'image/png'))
    await pick(w, file('two.png', 10, 'image/png'))
    expect(lastPending(w)?.uploads.map((f) => f.name)).toEqual(['two.png'])
    expect(w.find('[data-kit-stored="old.png"]').exists()).toBe(false)
    expect(w.find('[data-kit-picked-preview]').exists()).toBe(true)
  })

  it('shows a stored image by its first thumbnail when the field has thumbs, else by its url', () => {
    const thumbs = mount(KitFileInput, { props: { field: field('image', { thumbs: ['100x100', '400x0'] }), modelValue: stored('a.png') } })
    expect(thumbs.find('img[data-kit-preview]').attributes('src')).toBe('/api/f/a.png?sig=1&thumb=100x100')
    const plain = mount(KitFileInput, { props: { field: field('image'), modelValue: stored('a.png') } })
    expect(plain.find('img[data-kit-preview]').attributes('src')).toBe('/api/f/a.png?sig=1')
  })

  it('removes a stored file by name, and keeps it again on a second press', async () => {
    const w = mount(KitFileInput, { props: { field: field('image'), modelValue: stored('a.png') } })
    await w.find('[data-kit-file-remove]').trigger('click')
    expect(lastPending(w)).toEqual({ uploads: [], remove: ['a.png'] })
    await w.setProps({ pending: lastPending(w)! })
    expect(w.find('[data-kit-file-remove]').text()).toBe('Keep a.png')
    await w.find('[data-kit-file-remove]').trigger('click')
    expect(lastPending(w)).toEqual({ uploads: [], remove: [] })
  })

  it('shows the upload’s progress while the form saves', () => {
    const w = mount(KitFileInput, { props: { field: field('image'), pending: { uploads: [file('a.png', 10, 'image/png')], remove: [] }, progress: 0.42 } })
    expect(w.find('[data-kit-file-progress]').text()).toBe('Uploading 42%')
  })
})

describe('fileChanges', () => {
  const single = field('image')
  const multiple = { ...field('file', { multiple: true, maxFiles: 5 }), name: 'docs' }
  it('replaces a single field’s file, appends to a multiple one and removes by name', () => {
    const a = file('a.png', 1, 'image/png')
    const b = file('b.pdf', 1, 'application/pdf')
    expect(fileChanges([single, multiple], { photo: { uploads: [a], remove: [] }, docs: { uploads: [b], remove: ['old.pdf'] } })).toEqual({
      uploads: [{ field: 'photo', file: a }, { field: 'docs', file: b, append: true }],
      remove: { docs: ['old.pdf'] },
    })
  })
  it('clears a single field whose stored file was removed', () => {
    expect(fileChanges([single], { photo: { uploads: [], remove: ['a.png'] } })).toEqual({ clear: ['photo'] })
  })
  it('is null when nothing was picked or removed, so the form sends JSON', () => {
    expect(fileChanges([single, multiple], { photo: { uploads: [], remove: [] } })).toBeNull()
  })
})

describe('KitForm with an image field', () => {
  const fields: FormField[] = [{ name: 'title', type: 'string', label: 'Title' }, field('image')]
  it('submits the picked file with the values', async () => {
    const w = mount(KitForm, { props: { collection: 'x', fields } })
    await nextTick()
    const input = w.find('input[type="file"]')
    const a = file('a.png', 10, 'image/png')
    Object.defineProperty(input.element, 'files', { value: [a], configurable: true })
    await input.trigger('change')
    await w.find('input[type="text"]').setValue('Lamp')
    await w.find('form').trigger('submit')
    expect(w.emitted('submit')?.[0]).toEqual([{ title: 'Lamp' }, { uploads: [{ field: 'photo', file: a }] }])
  })
  it('submits JSON alone when no file was picked or removed', async () => {
    const w = mount(KitForm, { props: { collection: 'x', fields, action: 'update', item: { id: '1', title: 'Lamp', photo: stored('a.png') } } })
    await nextTick()
    await w.find('input[type="text"]').setValue('Lamp 2')
    await w.find('form').trigger('submit')
    expect(w.emitted('submit')?.[0]).toEqual([{ title: 'Lamp 2' }])
  })
})
