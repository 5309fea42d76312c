import { describe, expect, it } from 'vitest'
import { filesOf, KitClient, KitError, type UploadProgress } from '../src/index'
import { clientAs, server, unique } from './helpers'

// A 1×1 PNG.
const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0))

describe('files', () => {
  it('uploads an image with progress, reads its metadata and downloads it by its signed URL', async () => {
    const kit = clientAs('ann')
    const products = kit.team('acme').collection('shopProducts')
    const progress: UploadProgress[] = []
    const manual = new TextEncoder().encode('%PDF-1.4\n' + 'x'.repeat(200_000))
    const created = await products.createWithFiles({
      values: { title: unique('files'), price: '9.90' },
      uploads: [
        { field: 'image', file: new Blob([png]), name: 'lamp.png' },
        { field: 'manual', file: manual, name: 'manual.pdf' },
      ],
      onProgress: (p) => progress.push(p),
    })
    const [image] = filesOf(created, 'image')
    expect(image).toMatchObject({ name: 'lamp.png', size: png.byteLength, contentType: 'image/png', width: 1, height: 1 })
    expect(filesOf(created, 'manual')[0]).toMatchObject({ name: 'manual.pdf', contentType: 'application/pdf', size: manual.byteLength })
    expect(progress.length).toBeGreaterThan(1)
    expect(progress.at(-1)!.loaded).toBe(progress.at(-1)!.total)

    // A signed URL needs no token (an <img> tag sends none).
    const res = await fetch(new KitClient({ baseURL: server().baseURL }).fileURL(image!))
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toBe('image/png')
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff')
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(png)
  })

  it('replaces and removes files, and names the field of a refused upload', async () => {
    const products = clientAs('ann').team('acme').collection('shopProducts')
    const created = await products.createWithFiles({ values: { title: unique('replace'), price: '1' }, uploads: [{ field: 'image', file: png, name: 'a.png' }] })
    const replaced = await products.updateFiles(created.id, { uploads: [{ field: 'image', file: png, name: 'b.png' }] })
    expect(filesOf(replaced, 'image').map((f) => f.name)).toEqual(['b.png'])
    const cleared = await products.removeFile(created.id, 'image', 'b.png')
    expect(cleared.image).toBeNull()

    const refused = await products.createWithFiles({ values: { title: unique('refused'), price: '1' }, uploads: [{ field: 'image', file: new TextEncoder().encode('not an image'), name: 'x.png' }] }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(KitError)
    expect((refused as KitError).status).toBe(415)
    expect((refused as KitError).data).toMatchObject({ fields: { image: expect.any(String) } })
  })
})
