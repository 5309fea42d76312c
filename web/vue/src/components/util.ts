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

// English singulars, after the rules the Go registry names collections by
// (collections/naming.go), for the common cases: words without a plural,
// irregular plurals, and the -ies, -oes, -ses, -xes, -ches, -shes endings.
const uncountable = new Set(
  'news series species equipment information info feedback software hardware metadata data media sheep deer fish aircraft analytics physics mathematics economics logistics electronics'.split(' '),
)
const irregular: Record<string, string> = {
  people: 'person', children: 'child', men: 'man', women: 'woman', mice: 'mouse', geese: 'goose', feet: 'foot', teeth: 'tooth',
  oxen: 'ox', leaves: 'leaf', knives: 'knife', lives: 'life', wives: 'wife', halves: 'half', criteria: 'criterion',
  phenomena: 'phenomenon', axes: 'axis', indices: 'index',
}
const ieWords = new Set('movie cookie pie tie lie die rookie zombie selfie calorie hoodie brownie smoothie goalie freebie prairie genie veggie pixie'.split(' '))
const oesWords = new Set('hero potato tomato echo veto torpedo embargo'.split(' '))
const cheWords = new Set('ache cache headache niche avalanche moustache mustache cliche psyche quiche brioche'.split(' '))
const useWords = new Set('use reuse misuse abuse excuse fuse muse refuse ruse'.split(' '))
const singularS = new Set('alias atlas bias canvas gas lens cosmos ethos news'.split(' '))
const isSingularS = (w: string): boolean => w.endsWith('ss') || w.endsWith('us') || w.endsWith('sis') || singularS.has(w)

function singularWord(w: string): string {
  if (uncountable.has(w)) return w
  if (irregular[w]) return irregular[w]
  for (const [p, s] of [['people', 'person'], ['children', 'child'], ['women', 'woman']] as const) if (w.endsWith(p)) return w.slice(0, -p.length) + s
  const n = w.length
  if (n <= 2 || !w.endsWith('s') || isSingularS(w)) return w
  if (n > 3 && w.endsWith('ies')) return ieWords.has(w.slice(0, -1)) ? w.slice(0, -1) : w.slice(0, -3) + 'y'
  if (w.endsWith('oes')) return oesWords.has(w.slice(0, -2)) ? w.slice(0, -2) : w.slice(0, -1)
  if (w.endsWith('yses')) return w.slice(0, -4) + 'ysis'
  if (w.endsWith('uses')) return /[oa]uses$/.test(w) || useWords.has(w.slice(0, -1)) ? w.slice(0, -1) : w.slice(0, -2)
  if (w.endsWith('ses')) return isSingularS(w.slice(0, -2)) ? w.slice(0, -2) : w.slice(0, -1)
  if (w.endsWith('xes') || w.endsWith('shes') || w.endsWith('zzes')) return w.slice(0, -2)
  if (w.endsWith('ches')) return cheWords.has(w.slice(0, -1)) ? w.slice(0, -1) : w.slice(0, -2)
  return w.slice(0, -1)
}

/**
 * singular turns an English plural name into its singular: only the last
 * word changes, its case kept (`Categories` -> `Category`, `Boxes` -> `Box`,
 * `Sales people` -> `Sales person`, `NEWS` stays).
 */
export function singular(name: string): string {
  const m = /^(.*?)([A-Za-z]+)$/s.exec(name)
  if (!m) return name
  const [, head, last] = m as unknown as [string, string, string]
  const one = singularWord(last.toLowerCase())
  if (one === last.toLowerCase()) return name
  const cased = last === last.toUpperCase() && last.length > 1 ? one.toUpperCase() : last[0] === last[0]!.toUpperCase() ? one[0]!.toUpperCase() + one.slice(1) : one
  return head + cased
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

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>()
function dateTimeFormat(locale: string | undefined, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale ?? ''}|${JSON.stringify(options)}`
  let f = dateTimeFormats.get(key)
  if (!f) dateTimeFormats.set(key, (f = new Intl.DateTimeFormat(locale, options)))
  return f
}

/**
 * formatDate shows a timestamp in one format, the browser's locale's
 * (Intl: `Mar 15, 2026, 2:05 PM` in en-US); other values as they are.
 */
export function formatDate(value: unknown, locale?: string): string {
  if (typeof value !== 'string' && !(value instanceof Date)) return value == null ? '' : String(value)
  const d = value instanceof Date ? value : new Date(value)
  return Number.isNaN(d.getTime()) ? String(value) : dateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(d)
}

/** formatBytes says a number of bytes in the locale's words (`48.2 kB`, `1.5 MB`); locale undefined is the browser's. */
export function formatBytes(bytes: number, locale?: string): string {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const
  let n = bytes
  let u = 0
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024
    u++
  }
  return new Intl.NumberFormat(locale, { style: 'unit', unit: units[u], unitDisplay: 'short', maximumFractionDigits: 1 }).format(n)
}

/** formatDay shows the day of a date field (`2026-03-15`, or a timestamp at midnight UTC) in the browser's locale: `Mar 15, 2026`. */
export function formatDay(value: unknown, locale?: string): string {
  if (typeof value !== 'string') return value == null ? '' : String(value)
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
  return Number.isNaN(d.getTime()) ? value : dateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(d)
}

/** formatValue shows any field value as text. */
export function formatValue(value: unknown): string {
  if (value == null) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}
