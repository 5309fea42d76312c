// @vitest-environment happy-dom
import { filesOf, type KitRecord } from '@collectionkit/client'
import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { KitCard, KitTable, type TableColumn } from '../../src/index'
import { clientAs, mountWithKit, waitFor } from './mount'
import { unique } from '../harness'

// A 1×1 PNG.
const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0))
const pdf = new TextEncoder().encode('%PDF-1.4\n% a manual\n')

/** mediaRecord stores a testMedia record with a photo and two attachments on the real server. */
async function mediaRecord(): Promise<KitRecord> {
  return clientAs('ann')
    .team('acme')
    .collection('testMedia')
    .createWithFiles({
      values: { title: unique('media') },
      uploads: [
        // Files, as a browser picks them (happy-dom's multipart body names a part by its File).
        { field: 'photo', file: new File([png], 'lamp.png') },
        { field: 'attachments', file: new File([pdf], 'manual.pdf'), append: true },
        { field: 'attachments', file: new File([png], 'front.png'), append: true },
      ],
    })
}

const columns: TableColumn[] = [
  { accessorKey: 'title', header: 'Title' },
  { accessorKey: 'photo', header: 'Photo' },
  { accessorKey: 'attachments', header: 'Attachments' },
]

describe('file fields in tables and cards', () => {
  it('a table shows an image field by its first thumbs size through the signed URL, and the thumbnail is served', async () => {
    const rec = await mediaRecord()
    const w = mountWithKit(KitTable, { props: { collection: 'testMedia', rows: [rec], columns } })
    const img = await waitFor(() => {
      const el = w.find('[data-kit-cell="photo"] img')
      expect(el.attributes('data-kit-thumb')).toBe('64x64')
      return el
    })
    const src = new URL(img.attributes('src')!)
    expect(src.pathname).toMatch(new RegExp(`^/api/teams/[^/]+/test-media/${rec.id}/files/photo/lamp\\.png$`))
    expect(src.searchParams.get('thumb')).toBe('64x64')
    expect(src.searchParams.get('sig')).toBeTruthy()
    // The thumbnail's URL needs no token, as an <img> tag sends none.
    const res = await fetch(src)
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toMatch(/^image\//)
  })

  it('a table shows a file that is not an image as a link with its name, and a list file by file', async () => {
    const rec = await mediaRecord()
    const w = mountWithKit(KitTable, { props: { collection: 'testMedia', rows: [rec], columns } })
    const cell = w.find('[data-kit-cell="attachments"]')
    const link = cell.find('a[data-kit-file-link]')
    expect(link.text()).toContain('manual.pdf')
    expect(link.attributes('href')).toBe(w.kit.client.fileURL(filesOf(rec, 'attachments')[0]!))
    // The list's image shows as an image; the attachments field has no thumbs, so by its url.
    const img = cell.find('img')
    expect(img.attributes('src')).toBe(w.kit.client.fileURL(filesOf(rec, 'attachments')[1]!))
    expect(img.attributes('src')).not.toContain('thumb=')
    expect(cell.find('[data-kit-file-cell]').attributes('title')).toBe('manual.pdf, front.png')
  })

  it('without the kit plugin a table judges a file by its content type and shows a list beyond three as +n', () => {
    const file = (name: string, contentType: string) => ({ name, size: 1, contentType, url: `/api/x/${name}?sig=1` })
    const rows = [{ id: 'r1', title: 'One', photo: file('a.png', 'image/png'), attachments: ['a', 'b', 'c', 'd', 'e'].map((n) => file(`${n}.txt`, 'text/plain')) }] as unknown as KitRecord[]
    const w = mount(KitTable, { props: { collection: 'x', rows, columns } })
    expect(w.find('[data-kit-cell="photo"] img').attributes('src')).toBe('/api/x/a.png?sig=1')
    expect(w.findAll('[data-kit-cell="attachments"] a[data-kit-file-link]').map((a) => a.text())).toEqual(['📄a.txt', '📄b.txt', '📄c.txt'])
    expect(w.find('[data-kit-file-more]').text()).toBe('+2')
  })

  it('a card shows its image role by the field’s thumbnail, and a file in that role as a link with its name', async () => {
    const rec = await mediaRecord()
    const w = mountWithKit(KitCard, { props: { collection: 'testMedia', item: rec, layout: 'grid' } })
    const img = await waitFor(() => {
      const el = w.find('img')
      expect(el.attributes('data-kit-card-thumb')).toBe('64x64')
      return el
    })
    expect(new URL(img.attributes('src')!).searchParams.get('thumb')).toBe('64x64')

    const file = mountWithKit(KitCard, {
      props: { collection: 'pdfs', item: { id: 'r1', title: 'Manual', doc: filesOf(rec, 'attachments')[0] } as unknown as KitRecord, layout: 'list' },
    }, { collections: { pdfs: { name: 'pdfs', display: { image: 'doc' }, fields: [{ name: 'doc', type: 'file' }] } } })
    expect(file.find('img').exists()).toBe(false)
    expect(file.find('a[data-kit-card-file]').text()).toContain('manual.pdf')
  })
})
