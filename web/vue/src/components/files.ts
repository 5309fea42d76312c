import type { FileChanges, FileUpload, KitClient, KitFile } from '@collectionkit/client'
import { computed, shallowRef, toValue, watch, type ComputedRef, type InjectionKey, type MaybeRefOrGetter, type Ref } from 'vue'
import type { KitContext } from '../context'
import { useOptionalKit } from './util'
import type { FileLimits, FormField, PendingFiles } from './types'

/**
 * FormFiles is what a KitForm holds for its image and file fields: the
 * pending changes per field, and the upload's progress while it saves
 * (0 to 1, null otherwise).
 */
export interface FormFiles {
  pending: Record<string, PendingFiles>
  progress: Readonly<Ref<number | null>>
}

/** formFilesKey is the injection key of the enclosing form's FormFiles. */
export const formFilesKey: InjectionKey<FormFiles> = Symbol('kit-form-files')

/** The changes of a form's files: a FileChanges without the values and callbacks. */
export type FormFileChanges = Pick<FileChanges, 'uploads' | 'remove' | 'clear'>

/** limitsOf returns a field's file limits: its own, else kit's defaults (10 MiB, one file, any type). */
export function limitsOf(field: FormField): FileLimits {
  return field.files ?? { multiple: false, maxSize: 10 << 20, maxFiles: 1, mimeTypes: [], thumbs: [] }
}

/** accepts reports whether a content type is one of types (`image/*` takes every image); an empty list takes any. */
export function accepts(types: string[], contentType: string): boolean {
  if (!types.length) return true
  const t = contentType.toLowerCase().split(';')[0]!.trim()
  return types.some((a) => {
    const x = a.toLowerCase()
    return x.endsWith('/*') ? t.startsWith(x.slice(0, -1)) : t === x
  })
}

/**
 * fileChanges turns a form's pending files into the multipart changes
 * (see docs/files.md): a single field's picked file replaces the stored
 * one and removing it clears the field; a multiple field's picked files
 * are appended and its removed files removed by name. Null when nothing
 * changed: the form then sends JSON.
 */
export function fileChanges(fields: FormField[], pending: Record<string, PendingFiles>): FormFileChanges | null {
  const uploads: FileUpload[] = []
  const remove: Record<string, string[]> = {}
  const clear: string[] = []
  for (const f of fields) {
    const p = pending[f.name]
    if (!p || (!p.uploads.length && !p.remove.length)) continue
    const multiple = limitsOf(f).multiple
    for (const file of p.uploads) uploads.push(multiple ? { field: f.name, file, append: true } : { field: f.name, file })
    if (multiple && p.remove.length) remove[f.name] = [...p.remove]
    else if (!multiple && !p.uploads.length) clear.push(f.name)
  }
  if (!uploads.length && !Object.keys(remove).length && !clear.length) return null
  const out: FormFileChanges = {}
  if (uploads.length) out.uploads = uploads
  if (Object.keys(remove).length) out.remove = remove
  if (clear.length) out.clear = clear
  return out
}

/** isKitFile reports whether v is a file kit answered: an object with a name and a url. */
export function isKitFile(v: unknown): v is KitFile {
  return !!v && typeof v === 'object' && typeof (v as KitFile).name === 'string' && typeof (v as KitFile).url === 'string'
}

/** kitFilesOf returns the files a field's value holds: one, the list of a multiple field, or none (null, a URL string). */
export function kitFilesOf(v: unknown): KitFile[] {
  if (Array.isArray(v)) return v.filter(isKitFile)
  return isKitFile(v) ? [v] : []
}

/** FileFieldInfo is what a table or card shows a file field's value by: its type and its first thumbnail size. */
export interface FileFieldInfo {
  type: 'image' | 'file'
  /** The field's first meta.thumbs size (`100x100`), which its images show by; none without thumbs. */
  thumb?: string
}

/**
 * isImageFile reports whether a file shows as an image: a file of an image
 * field, or one whose sniffed content type is an image when the field's
 * type is not known.
 */
export function isImageFile(file: KitFile, info?: FileFieldInfo): boolean {
  if (info) return info.type === 'image'
  return file.contentType?.startsWith('image/') ?? false
}

/**
 * fileSrc is the URL a file shows by: its signed url (resolved against the
 * client's baseURL when there is a client), with `?thumb=WxH` when a
 * thumbnail size is given.
 */
export function fileSrc(file: KitFile, thumb: string | undefined, client?: Pick<KitClient, 'fileURL'> | null): string {
  if (client) return client.fileURL(file, thumb)
  if (!thumb) return file.url
  return `${file.url}${file.url.includes('?') ? '&' : '?'}thumb=${encodeURIComponent(thumb)}`
}

/** The part of a collection's JSON Schema the file cells read. */
interface ThumbSchema {
  properties?: Record<string, { 'x-thumbs'?: string[] }>
}

// The thumbnail sizes per collection, asked once per kit context.
const thumbsByContext = new WeakMap<KitContext, Map<string, Promise<Record<string, string>>>>()

function thumbsOf(kit: KitContext, collection: string): Promise<Record<string, string>> {
  const byKey = thumbsByContext.get(kit) ?? new Map<string, Promise<Record<string, string>>>()
  thumbsByContext.set(kit, byKey)
  let p = byKey.get(collection)
  if (!p) {
    p = kit.client
      .request<ThumbSchema>('GET', `kit/collections/${encodeURIComponent(collection)}/schema`)
      .then((s) => {
        const out: Record<string, string> = {}
        for (const [name, prop] of Object.entries(s.properties ?? {})) if (prop['x-thumbs']?.[0]) out[name] = prop['x-thumbs'][0]
        return out
      })
      .catch(() => {
        byKey.delete(collection)
        return {}
      })
    byKey.set(collection, p)
  }
  return p
}

/**
 * useFileFields returns a collection's image and file fields by name, with
 * the first thumbnail size of each image field: the types from the
 * registry (KitContext.configs), the sizes from the collection's JSON
 * Schema, asked once per app and only when it has an image field (the
 * registry is loaded when it is not yet). Without
 * the kit plugin it is empty: cells then judge a file by its content type.
 */
export function useFileFields(collection: MaybeRefOrGetter<string>): ComputedRef<Map<string, FileFieldInfo>> {
  const kit = useOptionalKit()
  const thumbs = shallowRef<Record<string, string>>({})
  if (kit && !kit.configs.value[toValue(collection)]) void kit.loadConfigs().catch(() => undefined)
  const types = computed(() => {
    const fields = (kit?.configs.value[toValue(collection)]?.fields as Array<{ name: string; type: string }> | undefined) ?? []
    return fields.filter((f) => f.type === 'image' || f.type === 'file') as Array<{ name: string; type: 'image' | 'file' }>
  })
  watch(
    () => [toValue(collection), types.value.some((f) => f.type === 'image')] as const,
    ([key, images]) => {
      thumbs.value = {}
      if (!kit || !images) return
      void thumbsOf(kit, key).then((t) => {
        if (toValue(collection) === key) thumbs.value = t
      })
    },
    { immediate: true },
  )
  return computed(() => new Map(types.value.map((f) => [f.name, f.type === 'image' && thumbs.value[f.name] ? { type: f.type, thumb: thumbs.value[f.name] } : { type: f.type }])))
}
