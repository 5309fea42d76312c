import type { KitError } from '@collectionkit/client'
import { ref, shallowRef, toValue, watch, type MaybeRefOrGetter, type Ref, type ShallowRef } from 'vue'
import type { FieldType, FormField } from './components/types'
import { asKitError, useKit } from './context'

/** The parts of a collection's JSON Schema (GET /api/kit/collections/{key}/schema) a form reads. */
interface PropertySchema {
  type?: string | string[]
  title?: string
  default?: unknown
  'x-precision'?: number
  'x-scale'?: number
  'x-refTarget'?: string
  'x-kit-file'?: boolean
  'x-maxSize'?: number
  'x-maxFiles'?: number
  'x-mimeTypes'?: string[]
  'x-thumbs'?: string[]
  items?: { properties?: Record<string, PropertySchema>; required?: string[] }
}
interface CollectionSchema {
  required?: string[]
  properties?: Record<string, PropertySchema>
}

const jsonTypes: Record<string, FieldType> = { string: 'string', integer: 'number', number: 'number', boolean: 'boolean', object: 'json', array: 'array' }

/**
 * itemFieldsOf reads a repeater's item fields from its JSON Schema's
 * `items.properties` (the JSON types mapped to field types, a date-time
 * string as date); none when the schema does not say.
 */
function itemFieldsOf(p: PropertySchema): FormField[] {
  const props = p.items?.properties
  if (!props) return []
  const required = new Set(p.items?.required ?? [])
  return Object.entries(props).map(([name, s]) => {
    const t = (Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type) ?? 'string'
    const f: FormField = { name, type: jsonTypes[t] ?? 'string', label: s.title || name, required: required.has(name) }
    if (t === 'integer') f.integer = true
    if (s.default !== undefined) f.default = s.default
    return f
  })
}

/**
 * useCollectionFields returns the form fields of a collection, in schema
 * order: name, type and label from the registry's `fields`; required,
 * default, precision, scale, integer, refTarget and a file field's limits
 * (files) from the collection's JSON Schema.
 * A collection without fields (an external one) has none. It loads again
 * when the collection changes.
 */
export function useCollectionFields(collection: MaybeRefOrGetter<string>): {
  fields: ShallowRef<FormField[]>
  pending: Ref<boolean>
  error: ShallowRef<KitError | null>
  ready: () => Promise<void>
} {
  const ctx = useKit()
  const fields = shallowRef<FormField[]>([])
  const pending = ref(true)
  const error = shallowRef<KitError | null>(null)
  let latest = 0
  let current: Promise<void> = Promise.resolve()

  async function load(): Promise<void> {
    const run = ++latest
    const key = toValue(collection)
    pending.value = true
    try {
      const configs = await ctx.loadConfigs()
      const info = configs[key]?.fields as Array<{ name: string; type: FieldType; label?: string }> | undefined
      let schema: CollectionSchema = {}
      if (info?.length) schema = await ctx.client.request<CollectionSchema>('GET', `kit/collections/${encodeURIComponent(key)}/schema`)
      if (run !== latest) return
      const required = new Set(schema.required ?? [])
      fields.value = (info ?? []).map((f) => {
        const p = schema.properties?.[f.name] ?? {}
        const out: FormField = { name: f.name, type: f.type, label: f.label || f.name, required: required.has(f.name) }
        if (p.default !== undefined) out.default = p.default
        if (p['x-precision'] !== undefined) out.precision = p['x-precision']
        if (p['x-scale'] !== undefined) out.scale = p['x-scale']
        if (p.type === 'integer' || (Array.isArray(p.type) && p.type.includes('integer'))) out.integer = true
        if (p['x-refTarget']) out.refTarget = p['x-refTarget']
        if (p['x-kit-file'] !== undefined) {
          const multiple = p['x-kit-file'] === true
          out.files = { multiple, maxSize: p['x-maxSize'] ?? 10 << 20, maxFiles: multiple ? (p['x-maxFiles'] ?? 1) : 1, mimeTypes: p['x-mimeTypes'] ?? [], thumbs: p['x-thumbs'] ?? [] }
        }
        if (f.type === 'repeater') {
          const items = itemFieldsOf(p)
          if (items.length) out.itemFields = items
        }
        return out
      })
      error.value = null
    } catch (err) {
      if (run === latest) error.value = asKitError(err)
    } finally {
      if (run === latest) pending.value = false
    }
  }

  watch(
    () => toValue(collection),
    () => {
      current = load()
    },
    { immediate: true },
  )
  return { fields, pending, error, ready: () => current }
}
