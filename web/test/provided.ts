// The values test/kit-server.ts provides to every test file: inject('kit').
import 'vitest'

/** KitServerInfo describes the running kit serve and the seeded data. */
export interface KitServerInfo {
  /** Origin of the server, such as http://127.0.0.1:41234 (the API is under /api). */
  baseURL: string
  /** Team ids: acme (Ann owner, Bea member) and globex (Gus owner). */
  teams: { acme: string; globex: string }
  /** User ids; root is a super-admin and member of no team. */
  users: { ann: string; bea: string; gus: string; root: string }
  /** Bearer tokens of the users. */
  tokens: { ann: string; bea: string; gus: string; root: string }
}

declare module 'vitest' {
  export interface ProvidedContext {
    kit: KitServerInfo
  }
}
