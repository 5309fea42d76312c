import type { CollectionConfigs, KitEvent } from '@collectionkit/client'
import { inject, type InjectionKey } from 'vue'
import { changeValue } from './activity'
import { displayName, singular } from './util'

/**
 * ActivityLabels turn an event's keys into what people read: the
 * collection's name, field labels, the record's title, values decoded
 * (a reference as the referenced record's title) and a link to the record.
 * KitActivityLog provides them for its rows and detail; without it the
 * rows show the keys.
 */
export interface ActivityLabels {
  /** The collection's name for one record (`Product`). */
  collection(name: string): string
  /** A field's label (`Price`), else its name. */
  field(collection: string, field: string): string
  /** The record's title, else its id. */
  record(e: KitEvent): string
  /** A change value decoded: text without quotes, a reference as its record's title, '—' for none. */
  value(collection: string, field: string, raw: string | null): string
  /** The record's address in the app, when the app says (KitPluginOptions.recordLink). */
  link(e: KitEvent): string | undefined
}

export const activityLabelsKey: InjectionKey<ActivityLabels> = Symbol('kit-activity-labels')

/** activityLabels builds the labels from the registry and the titles read (`<collection>/<id>` to title). */
export function activityLabels(
  configs: CollectionConfigs,
  titles: Map<string, string>,
  recordLink?: (collection: string, id: string) => string | undefined,
): ActivityLabels {
  const refTarget = (c: string, f: string) => configs[c]?.references?.[f]
  return {
    collection: (name) => singular(displayName(name, configs[name])),
    field(collection, field) {
      const fields = (configs[collection]?.fields as Array<{ name: string; label?: string }> | undefined) ?? []
      return fields.find((f) => f.name === field)?.label || field
    },
    record: (e) => titles.get(`${e.collectionName}/${e.itemId}`) ?? e.itemId,
    value(collection, field, raw) {
      const text = changeValue(raw)
      const target = refTarget(collection, field)
      return (target && titles.get(`${target}/${text}`)) || text
    },
    link: (e) => (e.operation === 'delete' ? undefined : recordLink?.(e.collectionName, e.itemId)),
  }
}

/** useActivityLabels returns the labels KitActivityLog provides, else labels that show the keys. */
export function useActivityLabels(): ActivityLabels {
  return inject(activityLabelsKey, null) ?? activityLabels({}, new Map())
}
