import type { CollectionConfig, CollectionConfigs, KitError } from '@collectionkit/client'
import { computed, ref, shallowRef, type ComputedRef, type Ref, type ShallowRef } from 'vue'
import { asKitError, useKit } from './context'

/** UseCollectionsReturn: the spec's `componentMap`, `dependentFieldComponentMap`, `getConfig`, `configs`. */
export interface UseCollectionsReturn {
  /** The registry: key to config (the server's, with the app's registrations merged over it). */
  configs: ShallowRef<CollectionConfigs>
  /** Collection key to its form component name, for collections that have one. */
  componentMap: ComputedRef<Record<string, string>>
  /** Collection key to its `dependentFieldComponents` (field name to component name). */
  dependentFieldComponentMap: ComputedRef<Record<string, Record<string, string>>>
  /** The config of a collection, or undefined when it is not registered (or not loaded yet). */
  getConfig: (name: string) => CollectionConfig | undefined
  /** Resolves when the registry is loaded. */
  ready: Promise<CollectionConfigs | undefined>
  pending: Ref<boolean>
  error: ShallowRef<KitError | null>
}

/**
 * useCollections reads the collection registry (`GET {prefix}/kit/collections`,
 * once per app) and derives the component maps from it.
 */
export function useCollections(): UseCollectionsReturn {
  const ctx = useKit()
  const pending = ref(true)
  const error = shallowRef<KitError | null>(null)
  const ready = ctx.loadConfigs().then(
    (c) => {
      pending.value = false
      return c
    },
    (err: unknown) => {
      error.value = asKitError(err)
      pending.value = false
      return undefined
    },
  )
  const configs = ctx.configs
  return {
    configs,
    componentMap: computed(() => {
      const out: Record<string, string> = {}
      for (const [key, c] of Object.entries(configs.value)) if (c.componentName) out[key] = c.componentName
      return out
    }),
    dependentFieldComponentMap: computed(() => {
      const out: Record<string, Record<string, string>> = {}
      for (const [key, c] of Object.entries(configs.value)) {
        if (c.dependentFieldComponents && Object.keys(c.dependentFieldComponents).length) out[key] = { ...c.dependentFieldComponents }
      }
      return out
    }),
    getConfig: (name) => (Object.hasOwn(configs.value, name) ? configs.value[name] : undefined),
    ready,
    pending,
    error,
  }
}
