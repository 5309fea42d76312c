import { ref, watch, type Ref } from 'vue'

/** ThemeChoice is the user's theme: the system's, or light or dark whatever the system says. */
export type ThemeChoice = 'system' | 'light' | 'dark'

const storageKey = 'kit-admin-theme'

/**
 * useTheme keeps the document's theme: the `dark` class on <html> (the
 * Tailwind `dark:` variant of the app keys on it) follows the system's
 * prefers-color-scheme, live, unless the user chose light or dark, which
 * is kept in localStorage. One per page: every call returns the same choice.
 */
let current: Ref<ThemeChoice> | undefined

export function useTheme(): Ref<ThemeChoice> {
  if (current) return current
  const stored = localStorage.getItem(storageKey)
  const choice = ref<ThemeChoice>(stored === 'light' || stored === 'dark' ? stored : 'system')
  const media = window.matchMedia('(prefers-color-scheme: dark)')
  const apply = () => {
    const dark = choice.value === 'dark' || (choice.value === 'system' && media.matches)
    document.documentElement.classList.toggle('dark', dark)
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light'
  }
  media.addEventListener('change', apply)
  watch(
    choice,
    (c) => {
      if (c === 'system') localStorage.removeItem(storageKey)
      else localStorage.setItem(storageKey, c)
      apply()
    },
    { immediate: true },
  )
  current = choice
  return choice
}
