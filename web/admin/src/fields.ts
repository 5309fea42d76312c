import type { CollectionConfig } from '@collectionkit/client'
import { humanize } from '@collectionkit/vue'

/** FieldMeta is what the admin knows of a field: the registry's field metadata plus the JSON Schema's. */
export interface FieldMeta {
  name: string
  type: string
  label: string
  required: boolean
  /** The referenced collection's registry key, for a reference field. */
  refTarget?: string
  scale?: number
  /** An image field's first thumbnail size (meta.thumbs), which tables show its files by. */
  thumb?: string
}

/** The fields kit keeps on every record (shown as columns, never edited). */
export const systemFields = ['id', 'createdAt', 'updatedAt', 'createdBy', 'updatedBy'] as const

/** treeFields names the four fields kit keeps for a tree or sortable collection. */
export function treeFields(c: CollectionConfig | undefined): string[] {
  const h = c?.hierarchy
  if (h?.enabled) return [h.parentField ?? 'parentId', h.pathField ?? 'path', h.depthField ?? 'depth', h.orderField ?? 'order']
  const s = c?.sortable
  if (s?.enabled) return [s.orderField ?? 'order']
  return []
}

/** JSONSchema is the part of GET /kit/collections/{key}/schema the form reads. */
export interface JSONSchema {
  required?: string[]
  properties?: Record<string, { type?: string | string[]; 'x-scale'?: number; 'x-refTarget'?: string; 'x-thumbs'?: string[] }>
}

/**
 * fieldMetas joins the registry's `fields` (order, label, type) with the
 * collection's JSON Schema (required, decimal scale, an image's first
 * thumbnail size) and `references`.
 * External collections have no `fields`: their schema's properties are used.
 */
export function fieldMetas(c: CollectionConfig | undefined, schema: JSONSchema | null): FieldMeta[] {
  if (!c) return []
  const required = new Set(schema?.required ?? [])
  const skip = new Set<string>([...systemFields, ...treeFields(c), 'teamId', 'owner'])
  const fields = (c.fields as Array<{ name: string; type: string; label?: string }> | undefined) ?? []
  const list = fields.length
    ? fields
    : Object.entries(schema?.properties ?? {}).map(([name, p]) => ({ name, type: Array.isArray(p.type) ? p.type[0] ?? 'string' : p.type ?? 'string', label: undefined }))
  return list
    .filter((f) => !skip.has(f.name))
    .map((f) => {
      const m: FieldMeta = { name: f.name, type: f.type, label: f.label || humanize(f.name), required: required.has(f.name) }
      const ref = c.references?.[f.name]
      if (ref) m.refTarget = ref
      const scale = schema?.properties?.[f.name]?.['x-scale']
      if (typeof scale === 'number') m.scale = scale
      const thumb = schema?.properties?.[f.name]?.['x-thumbs']?.[0]
      if (thumb) m.thumb = thumb
      return m
    })
}
