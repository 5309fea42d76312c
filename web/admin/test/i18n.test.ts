import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { translateFrom } from '@collectionkit/vue'
import { parse } from 'vue/compiler-sfc'
import { createI18n } from 'vue-i18n'
import { describe, expect, it } from 'vitest'
import { browserLocale, intlLocale } from '../src/i18n'
import { de } from '../src/locales/de'
import { en } from '../src/locales/en'

// The admin's words go through its message catalogs (English and German,
// each holding the components' `kit.` words and the app's `admin.` ones).
// These tests hold the catalogs complete and the templates free of words
// that bypass them.

const web = fileURLToPath(new URL('../..', import.meta.url))
/** The sources whose words the admin shows: the app's and the components'. */
const sourceDirs = ['admin/src', 'vue/src'].map((d) => join(web, d))

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name), ext) : ext.test(e.name) ? [join(dir, e.name)] : [],
  )
}

/** leaves lists a catalog's keys (dot paths) with their messages. */
function leaves(catalog: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>()
  for (const [k, v] of Object.entries(catalog as Record<string, unknown>)) {
    const key = prefix ? `${prefix}.${k}` : k
    if (v !== null && typeof v === 'object') for (const [kk, vv] of leaves(v, key)) out.set(kk, vv)
    else out.set(key, v)
  }
  return out
}

const enKeys = leaves(en)
const deKeys = leaves(de)

describe('the message catalogs', () => {
  it('every English key has a German message, and German has no key English lacks', () => {
    const missing = [...enKeys.keys()].filter((k) => typeof deKeys.get(k) !== 'string' || deKeys.get(k) === '')
    const extra = [...deKeys.keys()].filter((k) => !enKeys.has(k))
    expect(missing, 'keys without a German message').toEqual([])
    expect(extra, 'German keys English lacks').toEqual([])
    expect([...enKeys.values()].filter((v) => typeof v !== 'string' || v === ''), 'English keys without a message').toEqual([])
  })

  it('a German message names the same values as its English one', () => {
    const names = (m: unknown) => [...new Set(String(m).match(/\{\w+\}/g) ?? [])].sort()
    const differ = [...enKeys].filter(([k, m]) => names(m).join() !== names(deKeys.get(k)).join()).map(([k]) => k)
    expect(differ).toEqual([])
  })

  it('every key the sources name is in the catalogs', () => {
    const missing: string[] = []
    for (const file of sourceDirs.flatMap((d) => files(d, /\.(vue|ts)$/))) {
      if (file.includes(`${join('src', 'locales')}`)) continue
      const src = readFileSync(file, 'utf8')
      // Whole keys, as string literals: 'kit.table.search'.
      for (const [, key] of src.matchAll(/['"`]((?:kit|admin)\.[A-Za-z]+(?:\.[A-Za-z]+)+)['"`]/g)) {
        if (!enKeys.has(key!)) missing.push(`${relative(web, file)}: ${key}`)
      }
      // Keys built from a value: `kit.activity.operations.${op}` needs the group.
      for (const [, group] of src.matchAll(/`((?:kit|admin)(?:\.[A-Za-z]+)+)\.\$\{/g)) {
        if (![...enKeys.keys()].some((k) => k.startsWith(`${group}.`))) missing.push(`${relative(web, file)}: ${group}.*`)
      }
    }
    expect(missing).toEqual([])
  })

  it('vue-i18n reads every message of both catalogs, as the components default translator does', () => {
    const i18n = createI18n({ legacy: false, locale: 'en', messages: { en, de } })
    for (const [locale, catalog] of [['en', en], ['de', de]] as const) {
      i18n.global.locale.value = locale
      const ours = translateFrom(catalog)
      for (const [key, message] of leaves(catalog)) {
        const names = (String(message).match(/\{(\w+)\}/g) ?? []).map((m) => m.slice(1, -1))
        for (const n of String(message).includes('|') ? [1, 2] : [undefined]) {
          // A plural message's count is the value {count} (and {n}) of its own.
          const values = Object.fromEntries(names.filter((v) => n === undefined || (v !== 'count' && v !== 'n')).map((v) => [v, `<${v}>`]))
          const theirs = n === undefined ? i18n.global.t(key, values) : i18n.global.t(key, values, n)
          expect(ours(key, values, n), `${locale} ${key} (${n})`).toBe(theirs)
        }
      }
    }
  })
})

describe('the templates', () => {
  // Attributes people read or hear: a word in one of them must come from the catalog.
  const readAttributes = new Set(['aria-label', 'title', 'placeholder', 'alt', 'label', 'aria-description', 'aria-roledescription', 'summary'])
  // Text that is no word of a language.
  const notWords = new Set(['https://'])
  const hasWord = (s: string) => /\p{L}{2,}/u.test(s) && !notWords.has(s.trim())

  type Node = { type: number; content?: string; props?: Array<{ type: number; name: string; value?: { content: string } }>; children?: Node[]; loc: { start: { line: number } } }
  function bare(node: Node, found: string[], where: string): void {
    // 2: text; 1: element, whose props of type 6 are static attributes.
    if (node.type === 2 && hasWord(node.content ?? '')) found.push(`${where}:${node.loc.start.line} text “${node.content!.trim()}”`)
    for (const p of node.props ?? []) {
      if (p.type === 6 && readAttributes.has(p.name) && p.value && hasWord(p.value.content)) found.push(`${where}:${node.loc.start.line} ${p.name}="${p.value.content}"`)
    }
    for (const c of node.children ?? []) bare(c, found, where)
  }

  it('no component template holds a bare word: text and read attributes come from the catalog', () => {
    const found: string[] = []
    const vueFiles = sourceDirs.flatMap((d) => files(d, /\.vue$/))
    expect(vueFiles.length).toBeGreaterThan(20)
    for (const file of vueFiles) {
      const { descriptor } = parse(readFileSync(file, 'utf8'), { filename: file })
      if (descriptor.template?.ast) bare(descriptor.template.ast as unknown as Node, found, relative(web, file))
    }
    expect(found).toEqual([])
  })

  it('the check finds a bare word in text and in a label', () => {
    const found: string[] = []
    const { descriptor } = parse('<template><p>Save</p><button aria-label="Close">×</button><i :title="t(\'kit.common.close\')">{{ t("kit.common.edit") }}</i></template>')
    bare(descriptor.template!.ast as unknown as Node, found, 'x.vue')
    expect(found).toEqual(['x.vue:1 text “Save”', 'x.vue:1 aria-label="Close"'])
  })
})

describe('the language', () => {
  it.each([
    [['de-DE', 'en-US'], 'de'],
    [['en-GB', 'de'], 'en'],
    [['fr-FR', 'de-AT'], 'de'],
    [['fr-FR'], 'en'],
    [[], 'en'],
  ] as const)('browser languages %j choose %s', (languages, want) => {
    expect(browserLocale(languages)).toBe(want)
  })

  it.each([
    ['en', ['en-GB', 'de'], 'en-GB'],
    ['de', ['en-US'], 'de'],
    ['de', ['fr', 'de-CH'], 'de-CH'],
  ] as const)('dates and numbers in %s with browser languages %j use Intl locale %s', (chosen, languages, want) => {
    expect(intlLocale(chosen, languages)).toBe(want)
  })
})
