import type { CollectionConfig, CollectionConfigs } from '@collectionkit/client'
import { humanize } from '@collectionkit/vue'

/** NavEntry is one collection in the sidebar. */
export interface NavEntry {
  key: string
  label: string
  icon: string
  order: number
}

/** collectionLabel is a collection's sidebar entry: adminNav.label, else displayName, else the humanized name. */
export function collectionLabel(c: CollectionConfig): string {
  const nav = c.adminNav as { label?: string } | undefined
  return nav?.label || c.displayName || humanize(c.name)
}

/**
 * navEntries lists the collections of the sidebar from the registry's
 * adminNav: hidden when `enabled` is false; by `order` (collections
 * without one after those with one), then by label.
 */
export function navEntries(configs: CollectionConfigs): NavEntry[] {
  const out: NavEntry[] = []
  for (const [key, c] of Object.entries(configs)) {
    const nav = (c.adminNav ?? {}) as { enabled?: boolean; icon?: string; order?: number }
    if (nav.enabled === false) continue
    out.push({ key, label: collectionLabel(c), icon: nav.icon ?? '', order: nav.order ?? Number.MAX_SAFE_INTEGER })
  }
  return out.sort((a, b) => a.order - b.order || a.label.localeCompare(b.label))
}
