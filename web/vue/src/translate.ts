import { kitMessagesEn } from './locales/en'

/**
 * KitTranslate returns the message of key (`kit.table.search`) with its
 * named values filled in; with plural, the plural form for that count.
 * vue-i18n's `t` fits: `createKit({ t: (k, v, n) => n === undefined ?
 * i18n.global.t(k, v ?? {}) : i18n.global.t(k, v ?? {}, n) })`.
 */
export type KitTranslate = (key: string, values?: Record<string, unknown>, plural?: number) => string

function lookup(catalog: unknown, key: string): unknown {
  let v = catalog
  for (const part of key.split('.')) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<string, unknown>)[part]
  }
  return v
}

/**
 * translateFrom returns a translator reading catalog with vue-i18n's rules
 * for what the components use: `{name}` values, and plural forms `one |
 * other` or `none | one | other` chosen by the count, which is also the
 * value `{count}` and `{n}` unless given. A key the catalog lacks is
 * returned as it is.
 */
export function translateFrom(catalog: unknown): KitTranslate {
  return (key, values, plural) => {
    const found = lookup(catalog, key)
    if (typeof found !== 'string') return key
    let m = found
    const vals: Record<string, unknown> = plural === undefined ? { ...values } : { count: plural, n: plural, ...values }
    if (plural !== undefined && m.includes('|')) {
      const forms = m.split('|').map((s) => s.trim())
      const n = Math.abs(plural)
      m = forms.length === 2 ? forms[n === 1 ? 0 : 1]! : forms[Math.min(n, 2)] ?? forms[forms.length - 1]!
    }
    return m.replace(/\{(\w+)\}/g, (whole: string, name: string) => (name in vals ? String(vals[name]) : whole))
  }
}

/** The translator of the plugin when KitPluginOptions.t is unset: English (kitMessagesEn). */
export const defaultTranslate: KitTranslate = translateFrom(kitMessagesEn)

/** A part of a message with values that are elements: text, or the name of the value that goes there. */
export type MessagePart = { text: string } | { value: string }

/**
 * messageParts translates key with the named values in slots left as
 * places to fill, and returns the message as parts in order: a component
 * renders each slot as an element of its own (`{user}` in a span) wherever
 * the language puts it.
 */
export function messageParts(t: KitTranslate, key: string, slots: string[], values: Record<string, unknown> = {}): MessagePart[] {
  const mark = (name: string) => `\u0000${name}\u0000`
  const m = t(key, { ...values, ...Object.fromEntries(slots.map((s) => [s, mark(s)])) })
  const out: MessagePart[] = []
  m.split('\u0000').forEach((piece, i) => {
    if (i % 2 === 1 && slots.includes(piece)) out.push({ value: piece })
    else if (piece) out.push({ text: piece })
  })
  return out
}
