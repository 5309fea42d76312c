import type { InjectionKey, Ref } from 'vue'

/**
 * FormValidity is what a KitForm provides to the fields inside it (nested
 * repeater items too): each field reports the error it shows of its own
 * (text that does not parse, a decimal with too many digits), and a form
 * with any such error does not submit. `attempted` turns true once a
 * submit was tried, so fields show the errors they held back until then
 * (an item still empty, say).
 */
export interface FormValidity {
  /** Sets (or, with an empty error, clears) the error of the field behind token. */
  report(token: symbol, label: string, error: string, focus: () => void): void
  attempted: Readonly<Ref<boolean>>
}

/** formValidityKey is the injection key of the enclosing form's FormValidity. */
export const formValidityKey: InjectionKey<FormValidity> = Symbol('kit-form-validity')

/**
 * inWords turns a field's server message into a sentence naming the field:
 * `must have at most 2 digit(s) after the point` for Price reads
 * `Price must have at most 2 digits after the point.` A message that is a
 * sentence already (it starts with a capital) is kept as it is.
 */
export function inWords(label: string, message: string): string {
  const m = message.trim()
  if (!m || /^[A-Z]/.test(m)) return m
  const plural = m.replace(/\b1 (\w+)\(s\)/g, '1 $1').replace(/\((s|es)\)/g, '$1')
  return `${label} ${plural}${/[.!?]$/.test(plural) ? '' : '.'}`
}
