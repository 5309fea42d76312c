import type { EventChange } from '@collectionkit/client'
import { defaultTranslate, type KitTranslate } from '../translate'

/** changeValue shows a JSON-stringified change value: strings without quotes, null as an em dash. */
export function changeValue(v: EventChange['oldValue']): string {
  if (v === null || v === undefined) return '—'
  try {
    const parsed: unknown = JSON.parse(v)
    if (parsed === null) return '—'
    return typeof parsed === 'string' ? parsed : JSON.stringify(parsed)
  } catch {
    return v
  }
}

/** dayKey is the local calendar day of a timestamp (YYYY-MM-DD). */
export function dayKey(ts: string | Date): string {
  const d = new Date(ts)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
}

/** dayLabel names a day: Today, Yesterday (through t), or the date in locale (undefined: the browser's). */
export function dayLabel(key: string, now: Date = new Date(), t: KitTranslate = defaultTranslate, locale?: string): string {
  if (key === dayKey(now)) return t('kit.activity.today')
  const y = new Date(now)
  y.setDate(y.getDate() - 1)
  if (key === dayKey(y)) return t('kit.activity.yesterday')
  const [yy, mm, dd] = key.split('-').map(Number)
  return new Date(yy!, mm! - 1, dd!).toLocaleDateString(locale, { year: 'numeric', month: 'long', day: 'numeric' })
}

/** The badge classes of each operation. */
export const operationClass: Record<string, string> = {
  create: 'bg-green-100 text-green-800 dark:bg-green-900 dark:text-green-200',
  update: 'bg-blue-100 text-blue-800 dark:bg-blue-900 dark:text-blue-200',
  delete: 'bg-red-100 text-red-800 dark:bg-red-900 dark:text-red-200',
  move: 'bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-200',
  reorder: 'bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-200',
  restore: 'bg-teal-100 text-teal-800 dark:bg-teal-900 dark:text-teal-200',
  purge: 'bg-red-200 text-red-900 dark:bg-red-950 dark:text-red-100',
}

/** The operations of kit's audit events, in the order the filter lists them. */
export const knownOperations = ['create', 'update', 'delete', 'move', 'reorder', 'restore', 'purge']

/**
 * sentenceKey is the key under kit.activity.sentence of what a row says
 * for e: its operation's, 'trash' for a delete into the trash
 * (metadata.trashed), 'other' for an operation kit does not know.
 */
export function sentenceKey(e: { operation: string; metadata?: Record<string, unknown> }): string {
  if (e.operation === 'delete' && e.metadata?.trashed === true) return 'trash'
  return knownOperations.includes(e.operation) ? e.operation : 'other'
}
