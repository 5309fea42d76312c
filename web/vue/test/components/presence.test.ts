// @vitest-environment happy-dom
import type { PresenceSubscription } from '@collectionkit/client'
import { mount } from '@vue/test-utils'
import { describe, expect, inject, it, vi } from 'vitest'
import { defineComponent, h } from 'vue'
import { KitCollabPresence, KitCollection, useKitPresence, type UseKitPresenceReturn } from '../../src/index'
import { unique } from '../harness'
import { clientAs, mountWithKit, waitFor } from './mount'

const viewer = (userId: string, name: string, items: string[] = []) => ({ userId, name, items, since: 1 })

// The suites share one server: presence here is on shopCategories, which
// no other suite opens presence on, and the cases look at their own users.
describe('presence', () => {
  it('KitCollabPresence shows initials with names on hover and for assistive technology, at most max faces and +N, nothing when alone', () => {
    const w = mount(KitCollabPresence, {
      props: { viewers: [viewer('u1', 'Bea Lund'), viewer('u2', 'gus'), viewer('u3', 'Ann'), viewer('u4', 'Dee')], max: 2, label: 'Also here' },
    })
    expect(w.findAll('[data-kit-presence-user]').map((f) => [f.text(), f.attributes('title')])).toEqual([
      ['BL', 'Bea Lund'],
      ['GU', 'gus'],
    ])
    expect(w.find('li:not([data-kit-presence-user])').text()).toBe('+2')
    expect(w.find('[data-kit-presence-names]').text()).toBe('Also here: Bea Lund, gus, Ann, Dee')
    expect(mount(KitCollabPresence, { props: { viewers: [] } }).find('[data-kit-presence]').exists()).toBe(false)
  })

  it("KitCollection with showCollabPresence shows who else has the collection open by its title, and their record in the table's presence column", async () => {
    const { users } = inject('kit')
    const cats = clientAs('bea').team('acme').collection('shopCategories')
    const cat = await cats.create({ title: `${unique('presence')}` })
    const w = mountWithKit(KitCollection, { props: { collection: 'shopCategories', layout: 'table', showCollabPresence: true, rows: [cat] } })
    const bea = clientAs('bea').team('acme').presence({ collection: 'shopCategories', item: cat.id })
    try {
      // By the title and in the record's row.
      await waitFor(() => expect(w.findAll(`[data-kit-presence-user="${users.bea}"]`)).toHaveLength(2))
      expect(w.find(`[data-kit-row="${cat.id}"] [data-kit-cell="presence"] [data-kit-presence-user="${users.bea}"]`).text()).toBe('BE')
      expect(w.find(`[data-kit-row="${cat.id}"] [data-kit-cell="presence"] [data-kit-presence-names]`).text()).toBe('Viewing: Bea')
      bea.close()
      await waitFor(() => expect(w.find(`[data-kit-presence-user="${users.bea}"]`).exists()).toBe(false))
    } finally {
      bea.close()
    }
    const hidden = mountWithKit(KitCollection, {
      props: { collection: 'shopCategories', layout: 'table', showCollabPresence: true, rows: [cat], hideDefaultColumns: ['presence'] },
    })
    expect(hidden.find('[data-kit-column="presence"]').exists()).toBe(false)
  })

  it("components showing one collection share one stream, which reports the open form's record, then the workspace's selection", async () => {
    const { users, tokens } = inject('kit')
    const cats = clientAs('ann').team('acme').collection('shopCategories')
    const [one, two] = [await cats.create({ title: unique('one') }), await cats.create({ title: unique('two') })]
    const opened: string[] = []
    const fetchSpy = vi.spyOn(globalThis, 'fetch')
    let seen: UseKitPresenceReturn['viewers']['value'] = []
    let watcher: PresenceSubscription | undefined
    try {
      const Probe = defineComponent({
        setup() {
          const a = useKitPresence('shopCategories')
          useKitPresence(() => 'shopCategories')
          return () => h('p', a.viewers.value.length)
        },
      })
      const w = mountWithKit(Probe)
      watcher = clientAs('bea').team('acme').presence({ collection: 'shopCategories', onPresence: (e) => (seen = e.viewers) })
      const ann = () => seen.find((v) => v.userId === users.ann)
      await waitFor(() => expect(ann()?.items).toEqual([]))
      for (const [url, init] of fetchSpy.mock.calls) {
        const auth = (init?.headers as Record<string, string> | undefined)?.Authorization
        if (String(url).includes('/kit-presence') && auth === `Bearer ${tokens.ann}`) opened.push(String(url))
      }
      expect(opened, 'presence streams Ann opened').toHaveLength(1)
      w.kit.forms.open('update', 'shopCategories', { ids: [one.id] })
      await waitFor(() => expect(ann()?.items).toEqual([one.id]))
      w.kit.forms.close()
      await waitFor(() => expect(ann()?.items).toEqual([]))

      const ws = mountWithKit(KitCollection, {
        props: { collection: 'shopCategories', layout: 'workspace', showCollabPresence: true, rows: [one, two], selected: two.id },
      })
      await waitFor(() => expect(ann()?.items).toEqual([two.id]))
      watcher.close()
      watcher = clientAs('bea').team('acme').presence({ collection: 'shopCategories', item: two.id })
      await waitFor(() => expect(ws.find(`[data-kit-workspace-detail] [data-kit-presence-user="${users.bea}"]`).exists()).toBe(true))
      expect(ws.find('[data-kit-workspace-detail] [data-kit-presence-names]').text()).toBe('Also viewing this record: Bea')
    } finally {
      watcher?.close()
      fetchSpy.mockRestore()
    }
  })
})
