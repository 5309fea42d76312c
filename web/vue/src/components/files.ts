import type { FileChanges, FileUpload } from '@collectionkit/client'
import type { InjectionKey, Ref } from 'vue'
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
