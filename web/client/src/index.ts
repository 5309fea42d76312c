/**
 * @collectionkit/client: a framework-free, fetch-based client for kit's
 * collection HTTP API: lists with a filter builder, single records by the
 * collection's fetch strategy, writes that invalidate a read cache by the
 * spec's `references` rule, trees, the super-admin item route, audit event
 * tracking with a health record, the change stream and the presence
 * channel, and the proxy helpers.
 *
 * @packageDocumentation
 */
export { KitClient, TeamClient, CollectionClient, SuperAdminClient, importRejections, revertConflicts, DEFAULT_BUSY_RETRIES, MAX_BUSY_WAIT_MS } from './client'
export type { KitClientOptions, RequestOptions, MutationListener, UpdateOptions, Versioned } from './client'
export { Batch, BatchResults, batchRef } from './batch'
export type { BatchIndex, BatchResult } from './batch'
export { KitError, isKitError, errorFromResponse } from './errors'
export { CollectionCache, collectionCacheKey, collectionCachePrefix } from './cache'
export { FilterBuilder, filter } from './filter'
export { parseEvents } from './stream'
export type { ChangeEvent, ChangeSubscription, SubscribeOptions } from './changes'
export type { PresenceEvent, PresenceOptions, PresenceSubscription, PresenceViewer } from './presence'
export type { FilterObject, FilterOperator, FilterValue } from './filter'
export { encodeListQuery } from './query'
export { EventTracker, MemoryStorage, HEALTH_KEY } from './events'
export type { EventHealth, EventTrackerOptions, HealthStorage, ErrorMode, TrackOptions } from './events'
export { applyTransform, getProxiedEndpoint } from './proxy'
export { filesOf, buildFormData } from './files'
export type { KitFile, FileUpload, FileChanges, UploadProgress } from './files'
export type { ProxyLogger } from './proxy'
export type * from './types'
