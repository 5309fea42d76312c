import {
  EventTracker,
  KitError,
  type CollectionConfig,
  type CollectionConfigs,
  type EventHealth,
  type EventTrackerOptions,
  type KitClient,
} from '@collectionkit/client'
import { inject, shallowRef, toValue, type App, type InjectionKey, type MaybeRefOrGetter, type ShallowRef } from 'vue'
import { createKitForms, type KitForms } from './forms'
import { defaultTranslate, type KitTranslate } from './translate'
import { createKitPresence, type KitPresence } from './presence'

/** KitRoute is the part of a route the composables read (vue-router's route fits). */
export interface KitRoute {
  path: string
  params: Record<string, string | string[] | undefined>
  meta?: Record<string, unknown>
}

/** KitPluginOptions configure the kit plugin; only client is required. */
export interface KitPluginOptions {
  /** The client every composable uses. */
  client: KitClient
  /** The current team (id or slug); when it is empty, the route's `team` parameter is used. */
  team?: MaybeRefOrGetter<string | null | undefined>
  /** The current route, such as vue-router's `useRoute()` (a reactive object) or a getter. */
  route?: MaybeRefOrGetter<KitRoute | null | undefined>
  /**
   * Whether a route is a super-admin route, where useCollectionItem reads
   * `/api/super-admin/<collection>/<id>`. Default: `route.meta.superAdmin`
   * is true or the path starts with `/super-admin`.
   */
  isSuperAdminRoute?: (route: KitRoute) => boolean
  /**
   * Collection configs registered in the app (for example external
   * collections with a proxy transform); merged over the server's registry
   * by key.
   */
  collections?: CollectionConfigs
  /** Options of the event tracker useKitEventTracker returns. */
  tracker?: EventTrackerOptions
  /** A record's address in the app (the activity log links its records there); none by default. */
  recordLink?: (collection: string, id: string) => string | undefined
  /**
   * The translator of the components' words (their keys are those of
   * kitMessagesEn, under `kit.`); English by default. With vue-i18n, pass
   * its `t` (see KitTranslate) and merge kitMessagesEn (and kitMessagesDe)
   * into the app's catalogs.
   */
  t?: KitTranslate
  /** The locale the components format dates and numbers for with Intl; the browser's by default. */
  locale?: MaybeRefOrGetter<string | null | undefined>
}

/** KitContext is what the plugin provides: one per app, never global. */
export interface KitContext {
  client: KitClient
  /** The team for requests: the current team, else the route's `team` parameter (undefined when neither). */
  team(): string | undefined
  /** Whether the current route is a super-admin route. */
  superAdmin(): boolean
  /** The merged collection registry, empty until loaded. */
  configs: ShallowRef<CollectionConfigs>
  /** Loads (or, with force, reloads) the registry into configs. */
  loadConfigs(force?: boolean): Promise<CollectionConfigs>
  tracker: EventTracker
  /** The tracker's health record, updated after every attempt. */
  health: ShallowRef<EventHealth>
  /** The app's form controller: which create, update, delete or view form is open. */
  forms: KitForms
  /** The app's presence streams, one per team and collection (useKitPresence). */
  presence: KitPresence
  /** A record's address in the app, from KitPluginOptions.recordLink. */
  recordLink(collection: string, id: string): string | undefined
  /** The translator of the components' words (KitPluginOptions.t, else English). */
  t: KitTranslate
  /** The locale for Intl (KitPluginOptions.locale); undefined is the browser's. */
  locale(): string | undefined
}

/** The injection key of the KitContext. */
export const kitContextKey: InjectionKey<KitContext> = Symbol('kit')

function defaultIsSuperAdminRoute(route: KitRoute): boolean {
  return route.meta?.superAdmin === true || route.path === '/super-admin' || route.path.startsWith('/super-admin/')
}

/** createKitContext builds the context the plugin provides; use it directly with provide() when you have no app. */
export function createKitContext(options: KitPluginOptions): KitContext {
  const configs = shallowRef<CollectionConfigs>({ ...options.collections })
  let loading: Promise<CollectionConfigs> | undefined
  const tracker = new EventTracker(options.client, options.tracker)
  const health = shallowRef(tracker.health())
  const isSuperAdmin = options.isSuperAdminRoute ?? defaultIsSuperAdminRoute
  const forms = createKitForms()
  const ctx: KitContext = {
    client: options.client,
    team() {
      const current = toValue(options.team)
      if (current) return current
      const param = toValue(options.route)?.params?.team
      const team = Array.isArray(param) ? param[0] : param
      return team || undefined
    },
    superAdmin() {
      const route = toValue(options.route)
      return route ? isSuperAdmin(route) : false
    },
    configs,
    loadConfigs(force = false) {
      if (!loading || force) {
        const p = options.client.collections({ force }).then((server) => {
          configs.value = { ...server, ...options.collections }
          return configs.value
        })
        loading = p
        p.catch(() => {
          if (loading === p) loading = undefined
        })
      }
      return loading
    },
    tracker,
    health,
    forms,
    presence: createKitPresence(options.client, forms),
    recordLink: (collection, id) => options.recordLink?.(collection, id),
    t: options.t ?? defaultTranslate,
    locale: () => toValue(options.locale) || undefined,
  }
  return ctx
}

/**
 * createKit returns the Vue plugin that provides a KitContext to the app:
 *
 *     app.use(createKit({ client: new KitClient({ token }), route: useRoute() }))
 */
export function createKit(options: KitPluginOptions): { install(app: App): void; context: KitContext } {
  const context = createKitContext(options)
  return {
    context,
    install(app: App) {
      app.provide(kitContextKey, context)
    },
  }
}

/** useKit returns the provided KitContext; it throws when the plugin is not installed. */
export function useKit(): KitContext {
  const ctx = inject(kitContextKey, null)
  if (!ctx) throw new Error('[kit] no KitContext: install createKit(...) with app.use, or provide(kitContextKey, createKitContext(...))')
  return ctx
}

/** teamOrError returns the team for a request, or the spec's 400 when there is none. */
export function teamOrError(ctx: KitContext): string | KitError {
  return (
    ctx.team() ??
    new KitError({ status: 400, statusText: 'Bad Request', message: 'team id missing: no current team and no team route parameter' })
  )
}

/** asKitError turns anything thrown into a KitError. */
export function asKitError(err: unknown): KitError {
  if (err instanceof KitError) return err
  return new KitError({ status: 0, statusText: 'Error', message: err instanceof Error ? err.message : String(err), cause: err })
}

export type { CollectionConfig }
