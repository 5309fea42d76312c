import type { EventChange, KitEvent, KitRecord, Pagination } from '@collectionkit/client'
import type { VNodeChild } from 'vue'

/** CheckboxState is the spec's checkbox state: checked, unchecked or `'indeterminate'`. */
export type CheckboxState = boolean | 'indeterminate'

/** The context a column's `cell` function receives: the row's record and the cell's value. */
export interface TableCellContext<T extends KitRecord = KitRecord> {
  row: T
  value: unknown
}

/**
 * TableColumn is the spec's column: `id` defaults to `accessorKey`;
 * `accessorKey` reads a field, with dot notation for nested values; `header`
 * is a string or a render function; `sortable` (default false) makes a
 * header click sort; `enableSorting` defaults to `sortable`; `enableHiding`
 * (default true) lists the column in the visibility menu.
 */
export interface TableColumn<T extends KitRecord = KitRecord> {
  id?: string
  accessorKey?: string
  header: string | (() => VNodeChild)
  cell?: (ctx: TableCellContext<T>) => VNodeChild
  sortable?: boolean
  enableSorting?: boolean
  enableHiding?: boolean
  /** How KitTable shows the column: `align: 'end'` right-aligns its header and cells (numbers). */
  meta?: { align?: 'start' | 'end' }
}

/**
 * PaginationData is the spec's pagination data, the client's Pagination
 * (totalPages is computed when omitted).
 */
export type PaginationData = Pagination

/**
 * TableQuery is what a server-paginated KitTable asks its `refreshFn` for:
 * the page (1-based), its size, the sort and the search term.
 */
export interface TableQuery {
  page: number
  pageSize: number
  sortBy: string
  sortDirection: 'asc' | 'desc'
  search: string
}

/** SortableOptions configure drag and drop: `handle` (default true), `animation` ms (default 150), `disabled` (default false). */
export interface SortableOptions {
  handle?: boolean
  animation?: number
  disabled?: boolean
}

/** The keys of the default columns that `hideDefaultColumns` may hide. */
export type DefaultColumnKey = 'select' | 'createdAt' | 'updatedAt' | 'createdBy' | 'updatedBy' | 'presence' | 'actions'

/** LayoutType is one of the spec's layouts. */
export type LayoutType = 'table' | 'list' | 'grid' | 'tree' | 'kanban' | 'workspace'

/** ResponsiveLayout picks a layout per breakpoint: sm 640px+, md 768px+, lg 1024px+, xl 1280px+, 2xl 1536px+. */
export interface ResponsiveLayout {
  base: LayoutType
  sm?: LayoutType
  md?: LayoutType
  lg?: LayoutType
  xl?: LayoutType
  '2xl'?: LayoutType
}

/** The spec's responsive layout presets. */
export type LayoutPreset = 'responsive' | 'mobile-friendly' | 'compact' | 'tree-default'

/** GridSize sets the grid's columns: compact 4, comfortable 3, spacious 2. */
export type GridSize = 'compact' | 'comfortable' | 'spacious'

/** CardProps are the props every card component receives. */
export interface CardProps<T extends KitRecord = KitRecord> {
  item: T
  layout: Exclude<LayoutType, 'table'>
  collection: string
  pending?: boolean
  error?: unknown
}

/** KitAction is the spec's form action; undefined when no form is open. */
export type KitAction = 'create' | 'update' | 'delete' | 'view' | undefined

/** LoadingState is the spec's loading state of the forms. */
export type LoadingState =
  | 'notLoading'
  | 'create_send'
  | 'update_send'
  | 'delete_send'
  | 'view_send'
  | 'create_open'
  | 'update_open'
  | 'delete_open'
  | 'view_open'

/** FormContainer is where a collection's forms open (`slideover` by default). */
export type FormContainer = 'slideover' | 'modal' | 'dialog' | 'inline'

/** FieldType is one of the eleven schema field types. */
export type FieldType = 'string' | 'text' | 'number' | 'decimal' | 'boolean' | 'date' | 'json' | 'repeater' | 'array' | 'image' | 'file'

/**
 * FormField describes one input of a generated form: read from the
 * collection's registry entry (`fields`) and its JSON Schema (required,
 * default, precision, scale, integer, refTarget).
 */
export interface FormField {
  name: string
  type: FieldType
  label: string
  required?: boolean
  default?: unknown
  precision?: number
  scale?: number
  /** A number field with `meta.integer` (JSON Schema type `integer`): whole numbers only. */
  integer?: boolean
  /** The registry key of the collection a reference field points to. */
  refTarget?: string
  /** A repeater's item fields, when known (the JSON Schema's `items.properties`): each item is a small form of them. */
  itemFields?: FormField[]
  /** An image or file field's limits (the JSON Schema's x-kit-file, x-maxSize, x-maxFiles, x-mimeTypes, x-thumbs). */
  files?: FileLimits
}

/** FileLimits are an image or file field's limits, shown before an upload; the server stays the judge. */
export interface FileLimits {
  /** The field holds a list (meta.multiple). */
  multiple: boolean
  /** The largest file in bytes (meta.maxSize). */
  maxSize: number
  /** The most files of a multiple field (meta.maxFiles); 1 otherwise. */
  maxFiles: number
  /** The accepted content types (meta.mimeTypes, such as `image/*`); empty takes any. */
  mimeTypes: string[]
  /** The thumbnail sizes (meta.thumbs, such as `100x100`). */
  thumbs: string[]
}

/** PendingFiles are the changes a form holds for a file field until it saves: files picked, and stored files removed by name. */
export interface PendingFiles {
  uploads: File[]
  remove: string[]
}

/** The activity filter's state: all optional; empty means no filter. */
export interface ActivityFilterState {
  collectionName?: string
  operation?: 'create' | 'update' | 'delete' | 'move' | 'reorder' | ''
  userId?: string
  dateFrom?: string
  dateTo?: string
}

/** ActivityUser is a user the activity filter offers. */
export interface ActivityUser {
  id: string
  name: string
}

export type { EventChange, KitEvent, KitRecord }
