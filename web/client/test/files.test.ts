import { openAsBlob } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

  it('on Node the body streams: a file from fs.openAsBlob goes out piece by piece with progress, never read whole before it is sent', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kit-upload-'))
    try {
      const size = 4 << 20
      const bytes = new Uint8Array(size)
      for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) & 0xff
      await writeFile(join(dir, 'manual.bin'), bytes)
      const file = await openAsBlob(join(dir, 'manual.bin'))
      // How much of the file was read when each progress event came: a
      // body built whole before sending would have read all of it first.
      let read = 0
      const counted = new Proxy(file, {
        get(target, prop) {
          if (prop === 'stream')
            return () =>
              target.stream().pipeThrough(
                new TransformStream<Uint8Array, Uint8Array>({
                  transform(chunk, c) {
                    read += chunk.byteLength
                    c.enqueue(chunk)
                  },
                }),
              )
          const v = Reflect.get(target, prop, target)
          return typeof v === 'function' ? v.bind(target) : v
        },
      })
      const progress: Array<UploadProgress & { read: number }> = []
      const products = clientAs('ann').team('acme').collection('shopProducts')
      const created = await products.createWithFiles({
        values: { title: unique('stream'), price: '1' },
        uploads: [{ field: 'manual', file: counted, name: 'manual.bin' }],
        onProgress: (p) => progress.push({ ...p, read }),
      })
      expect(filesOf(created, 'manual')[0]).toMatchObject({ name: 'manual.bin', size })
      expect(progress.length).toBeGreaterThanOrEqual(size / (64 << 10))
      expect(progress.every((p, i) => i === 0 || p.loaded > progress[i - 1]!.loaded)).toBe(true)
      expect(progress.at(-1)!.loaded).toBe(progress.at(-1)!.total)
      expect(progress.at(-1)!.total).toBeGreaterThan(size)
      const halfway = progress.find((p) => p.loaded >= size / 2)!
      expect(halfway.read).toBeGreaterThan(0)
      expect(halfway.read).toBeLessThan(size)
      // The stored bytes are the file's.
      const res = await fetch(new KitClient({ baseURL: server().baseURL }).fileURL(filesOf(created, 'manual')[0]!))
      const digest = async (b: ArrayBuffer | Uint8Array) => Buffer.from(await crypto.subtle.digest('SHA-256', b as BufferSource)).toString('hex')
      expect(await digest(await res.arrayBuffer())).toBe(await digest(bytes))
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

