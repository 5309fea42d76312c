import { inject, shallowRef, type InjectionKey, type ShallowRef } from 'vue'

/** Toast is one short message of the app: a success or a failure. */
export interface Toast {
  id: number
  kind: 'success' | 'error'
  text: string
}

/** Toasts is the app's queue of messages: one per app, provided. */
export interface Toasts {
  list: ShallowRef<Toast[]>
  /** Shows text for a few seconds (a failure stays twice as long). */
  show(kind: Toast['kind'], text: string): void
  dismiss(id: number): void
}

export const toastsKey: InjectionKey<Toasts> = Symbol('toasts')

/** The time a success toast stays, in milliseconds; a failure stays twice as long. */
const lifetime = 4000

/** createToasts returns an empty queue; at most three toasts show at once, the newest last. */
export function createToasts(): Toasts {
  const list = shallowRef<Toast[]>([])
  let next = 0
  const t: Toasts = {
    list,
    show(kind, text) {
      const id = ++next
      list.value = [...list.value, { id, kind, text }].slice(-3)
      setTimeout(() => t.dismiss(id), kind === 'error' ? lifetime * 2 : lifetime)
    },
    dismiss(id) {
      list.value = list.value.filter((x) => x.id !== id)
    },
  }
  return t
}

export function useToasts(): Toasts {
  const t = inject(toastsKey)
  if (!t) throw new Error('[admin] no toasts provided')
  return t
}
