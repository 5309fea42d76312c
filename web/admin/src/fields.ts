import type { CollectionConfig, KitRecord } from '@collectionkit/client'
import { humanize } from './nav'

/** FieldMeta is what the admin knows of a field: the registry's field metadata plus the JSON Schema's. */
export interface FieldMeta {
  name: string
  type: string
  label: string
  required: boolean
  /** The referenced collection's registry key, for a reference field. */
  refTarget?: string
  scale?: number
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
  properties?: Record<string, { type?: string | string[]; 'x-scale'?: number; 'x-refTarget'?: string }>
}

/**
 * fieldMetas joins the registry's `fields` (order, label, type) with the
 * collection's JSON Schema (required, decimal scale) and `references`.
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
      return m
    })
}

/** Draft values: what the inputs hold (strings for most types). */
export type Draft = Record<string, unknown>

/** toDraft turns a record's value into what its input edits. */
export function toDraft(fields: FieldMeta[], rec: KitRecord | null): Draft {
  const d: Draft = {}
  for (const f of fields) {
    const v = rec?.[f.name]
    switch (f.type) {
      case 'boolean':
        d[f.name] = v === true
        break
      case 'date':
        d[f.name] = typeof v === 'string' ? v.slice(0, 10) : ''
        break
      case 'json':
      case 'repeater':
        d[f.name] = v === undefined || v === null ? '' : JSON.stringify(v, null, 2)
        break
      case 'array':
        d[f.name] = Array.isArray(v) ? v.join(', ') : ''
        break
      default:
        d[f.name] = v === undefined || v === null ? '' : String(v)
    }
  }
  return d
}

/**
 * fromDraft turns the inputs back into a record body. Empty inputs are
 * null (left out on create). Bad JSON is reported per field in errors.
 */
export function fromDraft(fields: FieldMeta[], draft: Draft, errors: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of fields) {
    const raw = draft[f.name]
    if (f.type === 'boolean') {
      out[f.name] = raw === true
      continue
    }
    const s = typeof raw === 'string' ? raw.trim() : raw
    if (s === '' || s === undefined || s === null) {
      out[f.name] = null
      continue
    }
    switch (f.type) {
      case 'number': {
        const n = Number(s)
        if (Number.isNaN(n)) errors[f.name] = 'must be a number'
        else out[f.name] = n
        break
      }
      case 'json':
      case 'repeater':
        try {
          out[f.name] = JSON.parse(String(s))
        } catch {
          errors[f.name] = 'must be valid JSON'
        }
        break
      case 'array':
        out[f.name] = String(s)
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
        break
      default:
        out[f.name] = s
    }
  }
  return out
}

/** cellText renders a value in a table cell. */
export function cellText(v: unknown, type?: string): string {
  if (v === null || v === undefined) return ''
  if (type === 'date' && typeof v === 'string') return v.slice(0, 10)
  if (typeof v === 'boolean') return v ? 'Yes' : 'No'
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}
