import { errorFromResponse, KitError } from './errors'

/**
 * KitFile is a file of an image or file field as kit answers it: its name,
 * size, content type (sniffed from the bytes), signed download URL (a path
 * on the server, usable in an `<img>` tag until it expires) and, for
 * images, its size in pixels. A field may hold a URL string instead: a
 * file kept elsewhere.
 */
export interface KitFile {
  name: string
  size: number
  contentType: string
  url: string
  width?: number
  height?: number
}

/** FileUpload is one file sent to an image or file field. */
export interface FileUpload {
  /** The field. */
  field: string
  /** The bytes: a File, a Blob, or a typed array. */
  file: Blob | Uint8Array
  /** The file's name; default the File's name, else `file`. */
  name?: string
  /** Append to a multiple field's list (a part named `field+`) instead of replacing it. */
  append?: boolean
}

/** UploadProgress is how much of a multipart body has been sent. */
export interface UploadProgress {
  loaded: number
  total: number
}

/**
 * FileChanges is a write with files, sent as multipart/form-data (see
 * docs/files.md): the other fields' values (one JSON part named `data`),
 * uploads, files to remove by name, and fields to clear.
 */
export interface FileChanges {
  values?: Record<string, unknown>
  uploads?: FileUpload[]
  remove?: Record<string, string[]>
  clear?: string[]
  /** Called as the body goes out; the last call has loaded === total. */
  onProgress?: (progress: UploadProgress) => void
  signal?: AbortSignal
}

/** filesOf returns a record's files of field: one for a single file field, the list of a multiple one, none for null or a URL string. */
export function filesOf(record: Record<string, unknown>, field: string): KitFile[] {
  const v = record[field]
  if (Array.isArray(v)) return v as KitFile[]
  if (v && typeof v === 'object' && typeof (v as KitFile).name === 'string') return [v as KitFile]
  return []
}

/** buildFormData returns the multipart body of changes. */
export function buildFormData(changes: FileChanges): FormData {
  const form = new FormData()
  if (changes.values) form.append('data', JSON.stringify(changes.values))
  for (const field of changes.clear ?? []) form.append(field, '')
  for (const [field, names] of Object.entries(changes.remove ?? {})) for (const n of names) form.append(`${field}-`, n)
  for (const up of changes.uploads ?? []) {
    const blob = up.file instanceof Blob ? up.file : new Blob([up.file as BlobPart])
    const name = up.name ?? (typeof File !== 'undefined' && up.file instanceof File ? up.file.name : 'file')
    form.append(up.append ? `${up.field}+` : up.field, blob, name)
  }
  return form
}

/** The size of the pieces a streamed multipart body goes out in (and its progress is told by). */
const pieceSize = 64 << 10

/** quoteName escapes a part's name or file name as browsers do (`"` %22, CR %0D, LF %0A). */
function quoteName(s: string): string {
  return s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

/**
 * multipartParts lays changes out as a multipart/form-data body in the
 * order of buildFormData: the encoded headers and values, and each file as
 * its Blob, to be read as the body goes out. total is the body's length.
 */
export function multipartParts(changes: FileChanges): { type: string; total: number; parts: Array<Uint8Array | Blob> } {
  const boundary = `----kit${crypto.randomUUID().replace(/-/g, '')}`
  const enc = new TextEncoder()
  const parts: Array<Uint8Array | Blob> = []
  const field = (name: string, value: string) =>
    parts.push(enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${quoteName(name)}"\r\n\r\n${value.replace(/\r?\n/g, '\r\n')}\r\n`))
  if (changes.values) field('data', JSON.stringify(changes.values))
  for (const name of changes.clear ?? []) field(name, '')
  for (const [name, names] of Object.entries(changes.remove ?? {})) for (const n of names) field(`${name}-`, n)
  for (const up of changes.uploads ?? []) {
    const blob = up.file instanceof Blob ? up.file : new Blob([up.file as BlobPart])
    const name = up.name ?? (typeof File !== 'undefined' && up.file instanceof File ? up.file.name : 'file')
    const partName = up.append ? `${up.field}+` : up.field
    parts.push(
      enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${quoteName(partName)}"; filename="${quoteName(name)}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      blob,
      enc.encode('\r\n'),
    )
  }
  parts.push(enc.encode(`--${boundary}--\r\n`))
  const total = parts.reduce((n, p) => n + (p instanceof Blob ? p.size : p.byteLength), 0)
  return { type: `multipart/form-data; boundary=${boundary}`, total, parts }
}

/**
 * streamParts returns the parts as one stream of pieces of at most 64 KiB,
 * reading each file (Blob.stream()) only as the stream is pulled, and
 * calls onSent with the bytes handed on so far.
 */
function streamParts(parts: Array<Uint8Array | Blob>, onSent: (loaded: number) => void): ReadableStream<Uint8Array> {
  let next = 0
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null
  let rest: Uint8Array | null = null
  let loaded = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (rest?.byteLength) {
          const piece = rest.subarray(0, pieceSize)
          rest = rest.subarray(piece.byteLength)
          loaded += piece.byteLength
          controller.enqueue(piece)
          onSent(loaded)
          return
        }
        if (reader) {
          const { done, value } = await reader.read()
          if (done) reader = null
          else rest = value
          continue
        }
        const part = parts[next++]
        if (part === undefined) {
          controller.close()
          return
        }
        if (part instanceof Blob) reader = part.stream().getReader()
        else rest = part
      }
    },
    async cancel(reason) {
      await reader?.cancel(reason)
    },
  })
}

/**
 * sendForm sends changes as a multipart body and resolves with the
 * decoded answer: through XMLHttpRequest where there is one (browsers:
 * upload progress events), else through fetch with a body that streams
 * (Node): the files are read as the body goes out, in pieces of 64 KiB,
 * and never held whole (a file from Node's fs.openAsBlob is read from
 * disk as it is sent), with progress as fetch takes the pieces. A non-2xx
 * answer rejects with a KitError.
 */
export async function sendForm<T>(
  url: string,
  method: string,
  changes: FileChanges,
  headers: Record<string, string>,
  opts: { onProgress?: (p: UploadProgress) => void; signal?: AbortSignal; credentials?: RequestCredentials; fetch: typeof fetch },
): Promise<{ body: T; headers: Headers }> {
  if (typeof XMLHttpRequest !== 'undefined') return sendXHR<T>(url, method, buildFormData(changes), headers, opts)
  const { type, total, parts } = multipartParts(changes)
  const body = streamParts(parts, (loaded) => opts.onProgress?.({ loaded, total }))
  const init: RequestInit & { duplex: 'half' } = { method, headers: { ...headers, 'Content-Type': type }, body, duplex: 'half' }
  if (opts.signal) init.signal = opts.signal
  if (opts.credentials) init.credentials = opts.credentials
  let res: Response
  try {
    res = await opts.fetch(url, init)
  } catch (cause) {
    if (opts.signal?.aborted) throw cause
    throw new KitError({ status: 0, statusText: 'Network Error', message: `${method} ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })
  }
  if (!res.ok) throw await errorFromResponse(res)
  return { body: (await res.json()) as T, headers: res.headers }
}

function sendXHR<T>(
  url: string,
  method: string,
  form: FormData,
  headers: Record<string, string>,
  opts: { onProgress?: (p: UploadProgress) => void; signal?: AbortSignal; credentials?: RequestCredentials },
): Promise<{ body: T; headers: Headers }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open(method, url)
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v)
    xhr.withCredentials = opts.credentials === 'include'
    xhr.upload.onprogress = (e) => opts.onProgress?.({ loaded: e.loaded, total: e.total })
    xhr.onerror = () => reject(new KitError({ status: 0, statusText: 'Network Error', message: `${method} ${url}: the request failed` }))
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'))
    xhr.onload = async () => {
      const h = new Headers()
      for (const line of xhr.getAllResponseHeaders().trim().split(/[\r\n]+/)) {
        const i = line.indexOf(':')
        if (i > 0) h.append(line.slice(0, i).trim(), line.slice(i + 1).trim())
      }
      const res = new Response(xhr.responseText, { status: xhr.status, statusText: xhr.statusText, headers: h })
      if (!res.ok) {
        reject(await errorFromResponse(res))
        return
      }
      resolve({ body: JSON.parse(xhr.responseText) as T, headers: h })
    }
    opts.signal?.addEventListener('abort', () => xhr.abort())
    xhr.send(form)
  })
}
