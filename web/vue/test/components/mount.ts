import { KitClient } from '@collectionkit/client'
import { enableAutoUnmount, flushPromises, mount, type ComponentMountingOptions, type VueWrapper } from '@vue/test-utils'
import { afterEach, inject, vi } from 'vitest'
import type { Component } from 'vue'
import '../../../test/provided'
import { createKit, type KitContext, type KitPluginOptions } from '../../src/index'

// Every component is unmounted after its test, and the test waits for the
// requests still under way: happy-dom aborts them when the file's window
// closes, which would only add noise.
enableAutoUnmount(afterEach)
const inflight = new Set<Promise<unknown>>()
afterEach(async () => {
  while (inflight.size) await Promise.allSettled([...inflight])
  await flushPromises()
})
const trackedFetch: typeof fetch = (input, init) => {
  const p = globalThis.fetch(input, init)
  inflight.add(p)
  void p.then(
    () => inflight.delete(p),
    () => inflight.delete(p),
  )
  return p
}

/**
 * mountWithKit mounts a component with the kit plugin installed, its client
 * signed in as a seeded user of the real kit server the suite starts
 * (test/kit-server.ts) and the current team acme unless told otherwise.
 */
export function mountWithKit<C extends Component>(
  component: C,
  options: ComponentMountingOptions<C> = {} as ComponentMountingOptions<C>,
  plugin: Partial<KitPluginOptions> & { user?: 'ann' | 'bea' | 'gus' | 'root' } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): VueWrapper<any> & { kit: KitContext } {
  const s = inject('kit')
  const client = new KitClient({ baseURL: s.baseURL, token: s.tokens[plugin.user ?? 'ann'], fetch: trackedFetch })
  const kit = createKit({ team: 'acme', ...plugin, client })
  const wrapper = mount(component, {
    ...options,
    global: { ...options.global, plugins: [...(options.global?.plugins ?? []), kit] },
  } as ComponentMountingOptions<C>)
  return Object.assign(wrapper, { kit: kit.context })
}

/** clientAs returns a client of the real server signed in as a seeded user. */
export function clientAs(user: 'ann' | 'bea' | 'gus' | 'root'): KitClient {
  const s = inject('kit')
  return new KitClient({ baseURL: s.baseURL, token: s.tokens[user], fetch: trackedFetch })
}

/**
 * waitFor retries an assertion until it passes, for up to 10 s: the server
 * answers and the 300 ms search debounce take longer when the whole suite
 * runs in parallel on a busy machine.
 */
export function waitFor<T>(assertion: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(assertion, { timeout: 10_000, interval: 20 })
}
