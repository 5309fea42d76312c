import type { KitTranslate } from '@collectionkit/vue'
import { computed, inject, watch, type InjectionKey, type WritableComputedRef } from 'vue'
import { createI18n } from 'vue-i18n'
import { de } from './locales/de'
import { en } from './locales/en'

/** The languages of the admin: English (the default) and German. */
export const locales = ['en', 'de'] as const
export type Locale = (typeof locales)[number]

/** Each language's name in itself, for the switch. */
export const localeNames: Record<Locale, string> = { en: 'English', de: 'Deutsch' }

const storageKey = 'kit-admin-locale'

function isLocale(v: unknown): v is Locale {
  return typeof v === 'string' && (locales as readonly string[]).includes(v)
}

/** browserLocale is the first of the browser's languages (navigator.languages, in order) the admin speaks, else English. */
export function browserLocale(languages: readonly string[]): Locale {
  for (const l of languages) {
    const base = l.toLowerCase().split('-')[0]
    if (isLocale(base)) return base
  }
  return 'en'
}

function browserLanguages(): readonly string[] {
  return navigator.languages?.length ? navigator.languages : [navigator.language]
}

/**
 * intlLocale is the locale dates and numbers are formatted for with Intl:
 * the browser's own language when it is a variant of the chosen one
 * (en-GB for English), else the chosen one.
 */
export function intlLocale(chosen: Locale, languages: readonly string[]): string {
  return languages.find((l) => l.toLowerCase().split('-')[0] === chosen) ?? chosen
}

/**
 * createAdminI18n creates the app's vue-i18n with both catalogs. The
 * language is the one the user chose (kept in localStorage), else the
 * first of the browser's languages the admin speaks, else English; <html
 * lang> follows it.
 */
export function createAdminI18n() {
  const stored = localStorage.getItem(storageKey)
  const i18n = createI18n({
    legacy: false,
    locale: isLocale(stored) ? stored : browserLocale(browserLanguages()),
    fallbackLocale: 'en',
    messages: { en, de },
  })
  const global = i18n.global
  const locale = computed<Locale>({
    get: () => global.locale.value,
    set: (l) => {
      global.locale.value = l
      localStorage.setItem(storageKey, l)
    },
  })
  watch(
    locale,
    (l) => {
      document.documentElement.lang = l
    },
    { immediate: true },
  )
  const t: KitTranslate = (key, values, plural) => (plural === undefined ? global.t(key, values ?? {}) : global.t(key, values ?? {}, plural))
  // The components' translator (KitPluginOptions.t) and the locale for Intl (KitPluginOptions.locale).
  return { i18n, locale, t, intl: () => intlLocale(locale.value, browserLanguages()) }
}

/** AdminI18n is the app's vue-i18n (Composition API), its language (settable, kept in localStorage), and what the kit plugin translates with. */
export type AdminI18n = ReturnType<typeof createAdminI18n>

export const i18nKey: InjectionKey<AdminI18n> = Symbol('admin-i18n')

/** useAdminI18n returns the app's AdminI18n (the language switch sets its locale). */
export function useAdminI18n(): AdminI18n {
  const l = inject(i18nKey)
  if (!l) throw new Error('[admin] no i18n provided')
  return l
}
