import { createRouter, createWebHistory, type Router } from 'vue-router'
import type { Session } from './session'

/**
 * createAdminRouter: the app's routes. History mode under the <base href>
 * admin.Handler writes (the Go side answers every unknown path with
 * index.html). Every route but /login needs a session; one without is sent
 * to /login with the page it wanted.
 */
export function createAdminRouter(session: Session): Router {
  const router = createRouter({
    history: createWebHistory(),
    routes: [
      { path: '/login', name: 'login', component: () => import('./pages/SignInPage.vue'), meta: { public: true } },
      {
        path: '/',
        component: () => import('./pages/AdminLayout.vue'),
        children: [
          { path: '', name: 'home', component: () => import('./pages/TeamHome.vue') },
          { path: 'teams/:team', name: 'team', component: () => import('./pages/TeamHome.vue') },
          { path: 'teams/:team/collections/:collection', name: 'collection', component: () => import('./pages/CollectionPage.vue') },
          { path: 'teams/:team/collections/:collection/trash', name: 'trash', component: () => import('./pages/TrashPage.vue') },
          { path: 'teams/:team/collections/:collection/import', name: 'import', component: () => import('./pages/ImportPage.vue') },
          { path: 'teams/:team/activity', name: 'activity', component: () => import('./pages/ActivityPage.vue') },
          { path: 'backups', name: 'backups', component: () => import('./pages/BackupsPage.vue') },
        ],
      },
      { path: '/:rest(.*)*', redirect: '/' },
    ],
  })
  router.beforeEach(async (to) => {
    if (to.meta.public) return true
    const me = await session.load().catch(() => null)
    if (!me) return { name: 'login', query: { redirect: to.fullPath } }
    return true
  })
  return router
}
