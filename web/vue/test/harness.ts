import { KitClient, type KitClientOptions } from '@collectionkit/client'
import { inject } from 'vitest'
import { createApp, effectScope, type EffectScope } from 'vue'
import '../../test/provided'
import { createKit, type KitPluginOptions } from '../src/index'

/**
 * withKit runs composables the way a component's setup would, without a DOM:
 * inside an app's injection context (the kit plugin installed) and an effect
 * scope that is stopped by dispose().
 */
export function withKit<T>(
  user: 'ann' | 'bea' | 'gus' | 'root',
  plugin: Omit<KitPluginOptions, 'client'> & { clientOptions?: KitClientOptions },
  setup: () => T,
): T & { dispose: () => void; scope: EffectScope; client: KitClient } {
  const s = inject('kit')
  const client = new KitClient({ baseURL: s.baseURL, token: s.tokens[user], ...plugin.clientOptions })
  const app = createApp({})
  app.use(createKit({ ...plugin, client }))
  const scope = effectScope()
  const result = app.runWithContext(() => scope.run(setup))!
  return { ...result, dispose: () => scope.stop(), scope, client }
}

/** unique returns a name no other test uses. */
export function unique(prefix: string): string {
  return `${prefix} ${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
}
