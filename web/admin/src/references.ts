import type { KitRecord } from '@collectionkit/client'
import { useKit } from '@collectionkit/vue'
import { onScopeDispose, shallowRef, watch, type Ref, type ShallowRef } from 'vue'
import type { FieldMeta } from './fields'

/** The most ids one `?ids=` read asks for. */
const idsPerRead = 100

/**
 * useReferenceTitles reads the titles of the records the reference fields
 * of rows point to: one `?ids=` read per referenced collection (per 100
 * ids) each time the rows change, and again, past the cache, when a
 * referenced collection changes (anyone's write, through the change
 * stream: a renamed category renames the products' cells).
 * The title is the target's `display.title` field, else `title`. An id
 * that cannot be read (deleted, another team's, an external collection
 * without `?ids=`) has no entry: the cell shows the id.
 */
export function useReferenceTitles(team: Ref<string>, fields: Ref<FieldMeta[]>, rows: Ref<KitRecord[]>): ShallowRef<Map<string, string>> {
  const kit = useKit()
  const titles = shallowRef(new Map<string, string>())
  let latest = 0
  async function load(force: boolean): Promise<void> {
    const run = ++latest
    const byTarget = new Map<string, Set<string>>()
    for (const f of fields.value) {
      if (!f.refTarget) continue
      const ids = byTarget.get(f.refTarget) ?? new Set<string>()
      for (const r of rows.value) if (typeof r[f.name] === 'string' && r[f.name]) ids.add(r[f.name] as string)
      byTarget.set(f.refTarget, ids)
    }
    const next = new Map<string, string>()
    await Promise.all(
      [...byTarget].map(async ([target, set]) => {
        const ids = [...set]
        const field = (kit.configs.value[target]?.display as Record<string, string> | undefined)?.title ?? 'title'
        for (let i = 0; i < ids.length; i += idsPerRead) {
          try {
            const items = await kit.client.team(team.value).collection(target).items(ids.slice(i, i + idsPerRead), { force })
            for (const it of items) if (typeof it[field] === 'string' && it[field]) next.set(`${target}/${it.id}`, it[field] as string)
          } catch {
            // The ids stay as they are.
          }
        }
      }),
    )
    if (run === latest) titles.value = next
  }
  watch([rows, fields, team], () => void load(false), { immediate: true })
  const stop = kit.client.onMutation((m) => {
    if (fields.value.some((f) => f.refTarget && m.invalidated.includes(f.refTarget))) void load(true)
  })
  onScopeDispose(stop)
  return titles
}
