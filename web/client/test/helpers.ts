import { inject } from 'vitest'
import { KitClient, type KitClientOptions } from '../src/index'
import '../../test/provided'

/** server returns the running kit serve and its seeded data. */
export function server() {
  return inject('kit')
}

/** clientAs returns a client with the token of a seeded user. */
export function clientAs(user: 'ann' | 'bea' | 'gus' | 'root', options: KitClientOptions = {}): KitClient {
  const s = server()
  return new KitClient({ baseURL: s.baseURL, token: s.tokens[user], ...options })
}

/** unique returns a name no other test uses. */
export function unique(prefix: string): string {
  return `${prefix} ${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
}
