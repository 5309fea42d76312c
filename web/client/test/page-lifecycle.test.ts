// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { parseEvents, type PresenceEvent } from '../src/index'
import { clientAs, server, unique } from './helpers'

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`timed out waiting for ${what}`)
}

// In a browser a stream must not hold one of the page's few connections
// to the server while nobody sees the page: left (pagehide, the
// back/forward cache too) or, for presence, hidden.
describe('streams and the page lifecycle', () => {
  it('a page that is left or hidden is no longer present, and is present again when shown', async () => {
    const { users } = server()
    const post = await clientAs('bea').team('acme').collection('blogPosts').create({ title: unique('lifecycle') })
    // Ann watches from outside the page: a plain fetch, which the page's lifecycle does not close.
    let seen: PresenceEvent | undefined
    const watching = new AbortController()
    const s = server()
    const res = await fetch(`${s.baseURL}/api/teams/acme/kit-presence?collection=blogPosts`, { headers: { Authorization: `Bearer ${s.tokens.ann}` }, signal: watching.signal })
    void (async () => {
      const reader = res.body!.getReader()
      const decoder = new TextDecoder()
      let buf = ''
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }))
        if (done) return
        const parsed = parseEvents(buf + decoder.decode(value, { stream: true }))
        buf = parsed.rest
        for (const ev of parsed.events) if (ev.event === 'presence') seen = JSON.parse(ev.data) as PresenceEvent
      }
    })()
    const ann = { close: () => watching.abort() }
    const bea = clientAs('bea').team('acme').presence({ collection: 'blogPosts', item: post.id })
    const beaThere = () => !!seen?.viewers.some((v) => v.userId === users.bea && v.items.includes(post.id))
    try {
      await until(beaThere, 'bea present')
      window.dispatchEvent(new Event('pagehide'))
      await until(() => !beaThere(), 'bea gone with her page')
      window.dispatchEvent(new Event('pageshow'))
      await until(beaThere, 'bea back')
      // A hidden tab is not viewing either.
      const visibility = (v: DocumentVisibilityState) => {
        Object.defineProperty(document, 'visibilityState', { value: v, configurable: true })
        document.dispatchEvent(new Event('visibilitychange'))
      }
      visibility('hidden')
      await until(() => !beaThere(), 'bea gone with her hidden tab')
      visibility('visible')
      await until(beaThere, 'bea back with her tab')
    } finally {
      ann.close()
      bea.close()
    }
  })

  it('a change stream closes while its page is left and resumes after it, missing nothing', async () => {
    const kit = clientAs('bea')
    const seen: string[] = []
    let opened = 0
    const sub = kit.team('acme').subscribe({ collections: ['blogPosts'], onOpen: () => opened++, onChange: (c) => c.itemId && seen.push(c.itemId) })
    try {
      await until(() => opened === 1, 'the stream to open')
      window.dispatchEvent(new Event('pagehide'))
      await until(() => !sub.open, 'the stream to close')
      const away = await clientAs('ann').team('acme').collection('blogPosts').create({ title: unique('while away') })
      window.dispatchEvent(new Event('pageshow'))
      await until(() => seen.includes(away.id), 'the change made while away')
      // The resumed stream says it is current (onOpen) after the changes
      // it replays, so the change can come first.
      await until(() => opened === 2, 'the stream to be open and current again')
      expect(opened).toBe(2)
    } finally {
      sub.close()
    }
  })
})
