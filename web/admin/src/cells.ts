import { defaultTranslate, formatDay, type KitTranslate } from '@collectionkit/vue'
import { h, type VNodeChild } from 'vue'
import { RouterLink } from 'vue-router'
import type { FieldMeta } from './fields'

/** The types whose cells are numbers: right-aligned, in the locale's digits. */
export const numericTypes = new Set(['number', 'decimal'])

const numberFormats = new Map<string, Intl.NumberFormat>()
/** formatNumber shows a number field's value (a decimal keeps its scale) with Intl in locale (undefined: the browser's). */
export function formatNumber(v: unknown, scale?: number, locale?: string): string {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
  if (Number.isNaN(n)) return v == null ? '' : String(v)
  const digits = typeof v === 'string' && scale === undefined ? (v.split('.')[1]?.length ?? 0) : (scale ?? undefined)
  const key = `${locale ?? ''}|${digits}`
  let f = numberFormats.get(key)
  if (!f) numberFormats.set(key, (f = new Intl.NumberFormat(locale, digits === undefined ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits })))
  return f.format(n)
}

/** summarize says what a JSON value holds in a few words (through t): `heightCm: 40, note: tall`, `3 items`. */
export function summarize(v: unknown, t: KitTranslate = defaultTranslate): string {
  if (v === null || v === undefined) return ''
  if (Array.isArray(v)) return t('admin.cells.items', {}, v.length)
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
    if (!entries.length) return t('admin.cells.empty')
    return entries.map(([k, x]) => `${k}: ${x !== null && typeof x === 'object' ? '…' : String(x)}`).join(', ')
  }
  return String(v)
}

/** CellContext is what a cell needs beyond its value: the team, the titles of referenced records, the words and the locale. */
export interface CellContext {
  team: string
  refTitle(target: string, id: string): string | undefined
  /** The translator of the app's words (Yes, No, `3 items`). */
  t: KitTranslate
  /** The locale for Intl; undefined is the browser's. */
  locale?: string
}

/**
 * renderCell renders a field's value in a table cell, by the field's type:
 * numbers right-aligned through Intl; dates through Intl in the browser's
 * locale; booleans as a Yes/No badge; arrays as chips (three, then `+n`);
 * repeaters as `n items`; JSON summarized; images as a thumbnail (kit's
 * `?thumb=` of the field's first size when it has thumbs); files as
 * a link; references as the referenced record's title, linked to it.
 * Every cell holds one line; the full value shows on hover.
 */
export function renderCell(f: FieldMeta, v: unknown, ctx: CellContext): VNodeChild {
  if (v === null || v === undefined || v === '') return ''
  if (f.refTarget && typeof v === 'string') {
    const title = ctx.refTitle(f.refTarget, v)
    return h(
      RouterLink,
      { to: { name: 'collection', params: { team: ctx.team, collection: f.refTarget }, query: { record: v } }, class: 'link', title: title ?? v, 'data-test': 'ref-link' },
      () => title ?? v,
    )
  }
  switch (f.type) {
    case 'number':
    case 'decimal':
      return formatNumber(v, f.scale, ctx.locale)
    case 'date':
      return h('time', { datetime: String(v) }, formatDay(v, ctx.locale))
    case 'boolean':
      return h('span', { class: v ? 'badge badge-yes' : 'badge badge-no' }, ctx.t(v ? 'admin.cells.yes' : 'admin.cells.no'))
    case 'array': {
      const list = Array.isArray(v) ? v : [v]
      const shown = list.slice(0, 3).map((x, i) => h('span', { key: i, class: 'chip' }, typeof x === 'string' ? x : JSON.stringify(x)))
      if (list.length > 3) shown.push(h('span', { key: 'more', class: 'text-xs text-slate-600 dark:text-slate-400' }, `+${list.length - 3}`))
      return h('span', { class: 'inline-flex gap-1', title: list.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ') }, shown)
    }
    case 'repeater':
    case 'json':
      return h('span', { class: 'text-slate-700 dark:text-slate-300', title: JSON.stringify(v, null, 1) }, summarize(v, ctx.t))
    case 'image': {
      const file = firstFile(v)
      const src = file.stored && f.thumb ? `${file.url}${file.url.includes('?') ? '&' : '?'}thumb=${encodeURIComponent(f.thumb)}` : file.url
      return h('img', { src, alt: '', class: 'size-8 rounded object-cover ring-1 ring-slate-200 dark:ring-slate-700', loading: 'lazy', title: file.name, 'data-kit-thumb': f.thumb && file.stored ? f.thumb : undefined })
    }
    case 'file': {
      const f = firstFile(v)
      return h('a', { href: f.url, class: 'link', target: '_blank', rel: 'noopener', title: f.name }, f.name)
    }
  }
  return typeof v === 'object' ? summarize(v, ctx.t) : String(v)
}

// firstFile is the first file an image or file value holds: kit's file
// objects (signed url and name: stored), or a URL string.
function firstFile(v: unknown): { url: string; name: string; stored: boolean } {
  const x = Array.isArray(v) ? v[0] : v
  if (x && typeof x === 'object' && typeof (x as { url?: unknown }).url === 'string') {
    const f = x as { url: string; name?: string }
    return { url: f.url, name: f.name ?? f.url, stored: true }
  }
  const s = String(x ?? '')
  return { url: s, name: s.split('/').pop() || s, stored: false }
}

