import { isKitError, type KitClient } from '@collectionkit/client'
import { inject, shallowRef, type InjectionKey, type ShallowRef } from 'vue'

/** A team of the signed-in user, as GET /api/me lists it. */
export interface MeTeam {
  id: string
  name: string
  slug: string
  avatarUrl?: string
  role: string
}

/** The signed-in user (GET /api/me). */
export interface Me {
  id: string
  name: string
  email: string
  image?: string
  role: string
  teams: MeTeam[]
}

/** Session is the signed-in state of the app: one per app, provided, never global. */
export interface Session {
  client: KitClient
  me: ShallowRef<Me | null>
  /** Loads the user behind the session cookie; null when not signed in. */
  load(force?: boolean): Promise<Me | null>
  /** Signs in with POST /auth/login (the server sets the session cookie). */
  signIn(email: string, password: string): Promise<Me>
  signOut(): Promise<void>
}

export const sessionKey: InjectionKey<Session> = Symbol('session')

export function createSession(client: KitClient): Session {
  const me = shallowRef<Me | null>(null)
  let loaded: Promise<Me | null> | undefined
  const s: Session = {
    client,
    me,
    load(force = false) {
      if (!loaded || force) {
        loaded = client.request<Me>('GET', 'me').then(
          (m) => (me.value = { ...m, teams: m.teams ?? [] }),
          (err: unknown) => {
            if (isKitError(err, 401)) return (me.value = null)
            loaded = undefined
            throw err
          },
        )
      }
      return loaded
    },
    async signIn(email, password) {
      await client.request('POST', 'auth/login', { body: { email, password } })
      const m = await s.load(true)
      if (!m) throw new Error('signed in, but GET /me answered 401')
      return m
    },
    async signOut() {
      await client.request('POST', 'auth/logout')
      me.value = null
      loaded = Promise.resolve(null)
    },
  }
  return s
}

export function useSession(): Session {
  const s = inject(sessionKey)
  if (!s) throw new Error('[admin] no session provided')
  return s
}
