/**
 * @collectionkit/vue: the spec's composables, binding @collectionkit/client
 * to Vue's reactivity. Install the plugin once per app; it provides the
 * client, the current team and route (no global store):
 *
 *     app.use(createKit({ client: new KitClient({ token }), route: useRoute() }))
 *     const { items, pending } = useCollectionQuery('shopProducts', { query: { search: 'lamp' } })
 *
 * @packageDocumentation
 */
export { createKit, createKitContext, kitContextKey, useKit } from './context'
export type { KitContext, KitPluginOptions, KitRoute } from './context'
export { useCollectionQuery } from './useCollectionQuery'
export type { UseCollectionQueryOptions, UseCollectionQueryReturn } from './useCollectionQuery'
export { useCollectionItem } from './useCollectionItem'
export type { UseCollectionItemReturn } from './useCollectionItem'
export { useCollectionMutation } from './useCollectionMutation'
export type { UseCollectionMutationReturn } from './useCollectionMutation'
export { useCollections } from './useCollections'
export type { UseCollectionsReturn } from './useCollections'
export { useCollectionProxy } from './useCollectionProxy'
export { useKitEventTracker } from './useKitEventTracker'
export type { KitTrackOptions } from './useKitEventTracker'
export { useKitEvents } from './useKitEvents'
export type { UseKitEventsOptions } from './useKitEvents'
export { useKitChanges } from './useKitChanges'
export type { UseKitChangesOptions, UseKitChangesReturn } from './useKitChanges'
