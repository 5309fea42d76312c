import type { KitError, KitRecord } from '@collectionkit/client'
import { reactive, readonly, type DeepReadonly } from 'vue'
import type { KitAction, LoadingState } from './components/types'

/** KitFormState is the state of the app's form: which action on which collection, and its loading state. */
export interface KitFormState {
  /** The open form's action; undefined when no form is open. */
  action: KitAction
  /** The spec's loading state: `<action>_open` while the form loads, `<action>_send` while it saves. */
  loading: LoadingState
  /** The registry key of the collection the form is for. */
  collection: string | undefined
  /** The records the form acts on: one for update and view, the selection for delete, none for create. */
  ids: string[]
  /** The record an update or view form edits, once loaded (or as given); a create form's starting values. */
  item: KitRecord | null
  /** The last failed load or save; its `data.fields` holds the server's per-field messages. */
  error: KitError | null
}

/** OpenFormOptions say what a form acts on. */
export interface OpenFormOptions {
  ids?: string[]
  item?: KitRecord | null
}

/**
 * KitForms is the app's form controller (one per app, provided by the kit
 * plugin): buttons open a form with `open`, the form host (KitFormHost)
 * renders it in the collection's container and moves `loading` through the
 * spec's states.
 */
export interface KitForms {
  state: DeepReadonly<KitFormState>
  /** Opens the form of an action: state.action is set and loading becomes `<action>_open`. */
  open(action: Exclude<KitAction, undefined>, collection: string, options?: OpenFormOptions): void
  /** Closes the form: action undefined, loading `notLoading`, nothing selected. */
  close(): void
  /** Sets the loading state (used by the form host). */
  setLoading(loading: LoadingState): void
  /** Sets the loaded record (used by the form host). */
  setItem(item: KitRecord | null): void
  /** Sets or clears the error (used by the form host). */
  setError(error: KitError | null): void
}

/** createKitForms returns a closed form controller. */
export function createKitForms(): KitForms {
  const state = reactive<KitFormState>({ action: undefined, loading: 'notLoading', collection: undefined, ids: [], item: null, error: null })
  return {
    state: readonly(state) as DeepReadonly<KitFormState>,
    open(action, collection, options = {}) {
      state.action = action
      state.collection = collection
      state.item = options.item ?? null
      // A create form's item only gives starting values: it names no record.
      state.ids = options.ids ? [...options.ids] : options.item && action !== 'create' ? [options.item.id] : []
      state.error = null
      state.loading = `${action}_open`
    },
    close() {
      state.action = undefined
      state.collection = undefined
      state.ids = []
      state.item = null
      state.error = null
      state.loading = 'notLoading'
    },
    setLoading(loading) {
      state.loading = loading
    },
    setItem(item) {
      state.item = item
    },
    setError(error) {
      state.error = error
    },
  }
}
