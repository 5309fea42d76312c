/**
 * @collectionkit/vue: the spec's composables, binding @collectionkit/client
 * to Vue's reactivity, and the spec's components (tables, collections in
 * layouts, generated forms, reference selects, the activity log), styled
 * with Tailwind CSS v4 classes. Install the plugin once per app; it provides
 * the client, the current team and route and the form controller (no global
 * store):
 *
 *     app.use(createKit({ client: new KitClient({ token }), route: useRoute() }))
 *     const { items, pending } = useCollectionQuery('shopProducts', { query: { search: 'lamp' } })
 *
 *     <KitCollection collection="shopProducts" layout="responsive" />
 *     <KitFormHost />
 *
 * @packageDocumentation
 */
export { createKit, createKitContext, kitContextKey, useKit } from './context'
export type { KitContext, KitPluginOptions, KitRoute } from './context'
// The components' words: English and German catalogs, and the translator they read through.
export { kitMessagesEn, type Catalog, type KitMessages } from './locales/en'
export { kitMessagesDe } from './locales/de'
export { defaultTranslate, messageParts, translateFrom } from './translate'
export type { KitTranslate, MessagePart } from './translate'
export { useKitI18n } from './i18n'
export type { KitI18n } from './i18n'
export { useCollectionQuery } from './useCollectionQuery'
export type { UseCollectionQueryOptions, UseCollectionQueryReturn } from './useCollectionQuery'
export { useCollectionItem } from './useCollectionItem'
export type { UseCollectionItemReturn } from './useCollectionItem'
export { useCollectionMutation } from './useCollectionMutation'
export type { UseCollectionMutationReturn } from './useCollectionMutation'
export { useKitBatch } from './useKitBatch'
export type { UseKitBatchReturn } from './useKitBatch'
export { useCollections } from './useCollections'
export type { UseCollectionsReturn } from './useCollections'
export { useCollectionProxy } from './useCollectionProxy'
export { useKitEventTracker } from './useKitEventTracker'
export type { KitTrackOptions } from './useKitEventTracker'
export { useKitEvents } from './useKitEvents'
export type { UseKitEventsOptions } from './useKitEvents'
export { useKitChanges } from './useKitChanges'
export type { UseKitChangesOptions, UseKitChangesReturn } from './useKitChanges'
export { useKitPresence } from './useKitPresence'
export type { UseKitPresenceReturn } from './useKitPresence'
export { createKitPresence } from './presence'
export type { KitPresence, PresenceState } from './presence'
export { createKitForms } from './forms'
export type { KitForms, KitFormState, OpenFormOptions } from './forms'
export type * from './components/types'
export { default as KitTable } from './components/KitTable.vue'
export { default as KitTableHeader } from './components/KitTableHeader.vue'
export { default as KitTableSearch } from './components/KitTableSearch.vue'
export { default as KitTablePagination } from './components/KitTablePagination.vue'
export { default as KitTableActions } from './components/KitTableActions.vue'
export { default as KitTableCheckbox } from './components/KitTableCheckbox.vue'
export { useCollectionFields } from './useCollectionFields'
export { default as KitReferenceSelect } from './components/KitReferenceSelect.vue'
export { default as KitItemCardMini } from './components/KitItemCardMini.vue'
export { default as KitFormField } from './components/KitFormField.vue'
export { default as KitFileInput } from './components/KitFileInput.vue'
export { default as KitFileCell } from './components/KitFileCell.vue'
export { accepts, fileChanges, fileSrc, formFilesKey, isImageFile, isKitFile, kitFilesOf, limitsOf, useFileFields } from './components/files'
export type { FileFieldInfo, FormFiles, FormFileChanges } from './components/files'
export { default as KitForm } from './components/KitForm.vue'
export { default as KitFormContainer } from './components/KitFormContainer.vue'
export { default as KitFormHost } from './components/KitFormHost.vue'
export { default as KitCollection } from './components/KitCollection.vue'
export { default as KitCard } from './components/KitCard.vue'
export { default as KitWorkspaceDetail } from './components/KitWorkspaceDetail.vue'
export { default as KitCollabPresence } from './components/KitCollabPresence.vue'
export { breakpoints, gridColumns, isLayout, layoutPresets, resolveLayout } from './components/layout'
// The naming rules the components use for titles and labels, for an app's own headings.
export { displayName, formatBytes, formatDate, formatDay, humanize, singular } from './components/util'
export { default as KitActivityLog } from './components/KitActivityLog.vue'
export { default as KitActivityTimeline } from './components/KitActivityTimeline.vue'
export { default as KitActivityEventRow } from './components/KitActivityEventRow.vue'
export { default as KitActivityFilters } from './components/KitActivityFilters.vue'
export { default as KitActivityEventDetail } from './components/KitActivityEventDetail.vue'
export { default as KitActivityChanges } from './components/KitActivityChanges.vue'
