import type { FilterBuilder, FilterObject } from './filter'

/** A record as kit sends it: the collection's fields plus the auto-generated ones. */
export interface KitRecord {
  id: string
  teamId?: string
  owner?: string
  createdAt?: string
  updatedAt?: string
  createdBy?: string
  updatedBy?: string
  [field: string]: unknown
}

/**
 * RecordShape is what a record type must have for the typed methods: an id.
 * KitRecord fits it, and so do the interfaces `kit gen types --lang ts`
 * writes (which have no index signature, so they do not fit KitRecord).
 */
export interface RecordShape {
  id: string
}

/** The spec's pagination data, as kit returns it with every list. */
export interface Pagination {
  currentPage: number
  pageSize: number
  totalItems: number
  totalPages?: number
  sortBy?: string
  sortDirection?: 'asc' | 'desc'
}

/** A page of records: `{items, pagination}`. */
export interface ListResponse<T = KitRecord> {
  items: T[]
  pagination: Pagination
}

/**
 * ListQuery is what a list accepts. `sort` is `-price` or `['-price', 'title']`
 * (a leading `-` is descending); `filter` is kit's filter JSON or a
 * FilterBuilder; `ids` asks for those records only (the `query` fetch
 * strategy's request, answered with an array).
 */
export interface ListQuery {
  page?: number
  pageSize?: number
  search?: string
  sort?: string | string[]
  sortBy?: string
  sortDirection?: 'asc' | 'desc'
  filter?: FilterObject | FilterBuilder
  /** Any other query parameter, passed as is. */
  [param: string]: unknown
}

/** How single records of a collection are fetched: `GET /{id}` or `?ids=<id>`. */
export type FetchStrategy = 'query' | 'restful'

/** The proxy part of a collection config. */
export interface ProxyConfig {
  enabled?: boolean
  sourceEndpoint?: string
  transform?: (item: any) => any
}

/** CollectionConfig is one entry of `GET {prefix}/kit/collections` (the `kitCollections` shape). */
export interface CollectionConfig {
  name: string
  layer?: string
  componentName?: string | null
  kind?: 'data' | 'content' | 'media'
  container?: 'slideover' | 'modal' | 'dialog' | 'inline'
  apiPath?: string
  displayName?: string
  defaultPagination?: { currentPage?: number; pageSize?: number; sortBy?: string; sortDirection?: 'asc' | 'desc' }
  references?: Record<string, string>
  dependentFieldComponents?: Record<string, string>
  hierarchy?: { enabled: boolean; parentField?: string; pathField?: string; depthField?: string; orderField?: string }
  sortable?: { enabled: boolean; orderField?: string }
  fetchStrategy?: FetchStrategy
  readonly?: boolean
  proxy?: ProxyConfig
  [custom: string]: unknown
}

/** The `kitCollections` registry: registry key (`shopProducts`) to config. */
export type CollectionConfigs = Record<string, CollectionConfig>

/** EventChange is one field's change in a tracked event; values are JSON-stringified. */
export interface EventChange {
  fieldName: string
  oldValue: string | null
  newValue: string | null
}

/** KitEvent is the spec's tracked event record. */
export interface KitEvent {
  id?: string
  teamId?: string
  timestamp: string
  operation: 'create' | 'update' | 'delete' | 'move' | 'reorder' | 'restore' | 'purge'
  collectionName: string
  itemId: string
  userId: string
  userName: string
  changes: EventChange[]
  metadata?: Record<string, unknown>
  user?: { id: string; name: string; image: string }
}

/** EventListQuery filters `GET /teams/{team}/kit-events`. */
export interface EventListQuery {
  collectionName?: string
  operation?: string
  userId?: string
  itemId?: string
  dateFrom?: string
  dateTo?: string
  page?: number
  pageSize?: number
  enrichUserData?: boolean
}

/** A move: the new parent (null for a root) and position (appended when omitted). */
export interface MoveTarget {
  parentId: string | null
  order?: number
}

/** A reorder: every sibling id in its new order, or some `{id, order}` placements. */
export type ReorderInput = string[] | { id: string; order: number }[]

/** ReadOptions apply to every read. */
export interface ReadOptions {
  /** Skip the cache: fetch and store the fresh answer. */
  force?: boolean
  signal?: AbortSignal
}

/** Mutation is what the client reports to its mutation listeners after a write succeeds. */
export interface Mutation {
  /** The write; `reset` when the change stream could not resume and everything may be stale. */
  operation: 'create' | 'update' | 'delete' | 'move' | 'reorder' | 'restore' | 'purge' | 'reset'
  /** The registry key of the collection written. */
  collection: string
  team: string
  ids: string[]
  /** The collections whose cached reads were invalidated: the collection and its references. */
  invalidated: string[]
  /** `client` for a write through this client, `stream` for a change another writer made (TeamClient.subscribe). */
  source?: 'client' | 'stream'
}

/** TrashedRecord is one entry of a softDelete collection's trash. */
export interface TrashedRecord<T = KitRecord> {
  /** The record's id, which a restore keeps. */
  id: string
  /** When it was deleted (RFC 3339). */
  deletedAt: string
  /** The id of the user who deleted it. */
  deletedBy: string
  /** The record as it was when deleted. */
  record: T
}

/** Backup is a backup archive of the server's backup store (super-admins). */
export interface Backup {
  /** The archive's name, `kit-....tar`. */
  name: string
  /** Its length in bytes. */
  size: number
  /** When it was written (RFC 3339). */
  createdAt: string
}

/** The formats of an export and an import. */
export type ExportFormat = 'csv' | 'json' | 'ndjson'

/** ImportResult is the answer of an import that went through. */
export interface ImportResult {
  /** How many records were created. */
  imported: number
  /** The correlation id of the import's audit events and changes. */
  correlationId: string
}

/**
 * ImportRejectedRow is one reason an import was refused (`data.rejected`
 * of its 400): `line` in the input, `row` counted from 1 after a CSV's
 * header (0 for the header itself), the field when one is to blame.
 */
export interface ImportRejectedRow {
  line: number
  row: number
  field?: string
  reason: string
}
