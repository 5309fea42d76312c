import type { KitClient, KitError, PresenceSubscription, PresenceViewer } from '@collectionkit/client'
import { effectScope, ref, shallowRef, watch, type Ref, type ShallowRef } from 'vue'
import type { KitForms } from './forms'

/** The state of one collection's presence, shared by everything in the app that shows it. */
export interface PresenceState {
  /** The other users of the team with the collection open (never the current user). */
  viewers: ShallowRef<PresenceViewer[]>
  /** Whether the presence stream is open right now. */
  connected: Ref<boolean>
  /** The server's refusal, or null; the stream then stays closed. */
  error: ShallowRef<KitError | null>
}

/**
 * KitPresence keeps one presence stream per team and collection for the
 * whole app, however many components show it, and says which record the
 * app has open there: the record of the open update or view form of that
 * collection, else the first record a component named with setItem.
 */
export interface KitPresence {
  /** join starts showing team's collection; the returned leave stops (the stream closes after the last). */
  join(team: string, collection: string, item?: string | null): { state: PresenceState; setItem(item: string | null): void; leave(): void }
}

interface Entry extends PresenceState {
  team: string
  collection: string
  items: Map<symbol, string | null>
  sub: PresenceSubscription | undefined
  declared: string | null
}

/** createKitPresence returns the app's presence: one per KitContext. */
export function createKitPresence(client: KitClient, forms: KitForms): KitPresence {
  const entries = new Map<string, Entry>()

  function formItem(collection: string): string | null {
    const s = forms.state
    return s.collection === collection && (s.action === 'update' || s.action === 'view') ? (s.ids[0] ?? null) : null
  }
  /** declare (re)opens e's stream when the record it should report changed. */
  function declare(e: Entry): void {
    const item = formItem(e.collection) ?? [...e.items.values()].find((v) => !!v) ?? null
    if (e.sub && item === e.declared) return
    e.sub?.close()
    e.declared = item
    e.connected.value = false
    e.error.value = null
    e.sub = client.team(e.team).presence({
      collection: e.collection,
      item,
      onPresence: (ev) => {
        e.connected.value = true
        e.viewers.value = ev.viewers
      },
      onClose: () => {
        e.connected.value = false
        e.viewers.value = []
      },
      onError: (err) => {
        e.connected.value = false
        e.viewers.value = []
        e.error.value = err
      },
    })
  }
  // The open form's record is part of what the app has open.
  effectScope(true).run(() =>
    watch(
      () => [forms.state.action, forms.state.collection, forms.state.ids[0]],
      () => entries.forEach(declare),
    ),
  )

  return {
    join(team, collection, item = null) {
      const key = `${team}\n${collection}`
      let e = entries.get(key)
      if (!e) {
        e = { team, collection, items: new Map(), sub: undefined, declared: null, viewers: shallowRef([]), connected: ref(false), error: shallowRef(null) }
        entries.set(key, e)
      }
      const entry = e
      const token = Symbol('presence')
      entry.items.set(token, item)
      declare(entry)
      return {
        state: entry,
        setItem(next) {
          if (!entry.items.has(token) || entry.items.get(token) === next) return
          entry.items.set(token, next)
          declare(entry)
        },
        leave() {
          if (!entry.items.delete(token)) return
          if (entry.items.size > 0) return declare(entry)
          entry.sub?.close()
          entry.sub = undefined
          entries.delete(key)
        },
      }
    },
  }
}
