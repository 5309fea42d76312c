import { inject } from 'vue'
import { kitContextKey } from './context'
import { defaultTranslate, type KitTranslate } from './translate'

/** KitI18n is what the components translate and format with: the translator and the locale for Intl. */
export interface KitI18n {
  t: KitTranslate
  /** The locale for Intl (dates, numbers); undefined is the browser's. */
  locale(): string | undefined
}

/** useKitI18n returns the app's translator and locale (KitPluginOptions.t and locale), else English and the browser's locale. */
export function useKitI18n(): KitI18n {
  const ctx = inject(kitContextKey, null)
  return ctx ? { t: ctx.t, locale: ctx.locale } : { t: defaultTranslate, locale: () => undefined }
}
