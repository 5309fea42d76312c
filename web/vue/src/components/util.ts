import type { CollectionConfig } from '@collectionkit/client'
import { inject } from 'vue'
import { kitContextKey, type KitContext } from '../context'

/** useOptionalKit returns the provided KitContext, or null when the plugin is not installed (stateless use). */
export function useOptionalKit(): KitContext | null {
  return inject(kitContextKey, null)
}

/** valueAt reads a value by dot notation (`dimensions.width`). */
export function valueAt(row: unknown, path: string): unknown {
  let v: unknown = row
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<string, unknown>)[part]
  }
  return v
}

/** singular turns an English plural into its singular (`Categories` -> `Category`, `Products` -> `Product`). */
export function singular(word: string): string {
  if (/ies$/i.test(word)) return word.slice(0, -3) + (word.endsWith('IES') ? 'Y' : 'y')
  if (/(ss|x|ch|sh)es$/i.test(word)) return word.slice(0, -2)
  if (/ss$/i.test(word)) return word
  if (/s$/i.test(word)) return word.slice(0, -1)
  return word
}

/** pascalCase turns a registry key into a component name prefix (`shopProducts` -> `ShopProducts`). */
export function pascalCase(key: string): string {
  return key
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('')
}

/** humanize turns a field or collection name into words (`createdAt` -> `Created at`). */
export function humanize(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[-_]+/g, ' ').toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** displayName is a collection's human name: the config's displayName, else the key in words. */
export function displayName(key: string, config: CollectionConfig | undefined): string {
  return config?.displayName || humanize(key.replace(/^[a-z]+(?=[A-Z])/, ''))
}

/** formatDate shows a timestamp in the user's locale; other values as they are. */
export function formatDate(value: unknown): string {
  if (typeof value !== 'string' && !(value instanceof Date)) return value == null ? '' : String(value)
  const d = value instanceof Date ? value : new Date(value)
  return Number.isNaN(d.getTime()) ? String(value) : d.toLocaleString()
}

/** formatValue shows any field value as text. */
export function formatValue(value: unknown): string {
  if (value == null) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}
