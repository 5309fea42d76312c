import { KitClient } from '@collectionkit/client'
import { createKit } from '@collectionkit/vue'
import { createApp } from 'vue'
import App from './App.vue'
import { createAdminI18n, i18nKey } from './i18n'
import { createAdminRouter } from './router'
import { createSession, sessionKey } from './session'
import { createToasts, toastsKey } from './toasts'
import './style.css'

// admin.Handler writes the API prefix of the Kit it serves into this meta
// tag (and the mount point into <base href>), so one build works anywhere.
const prefix = document.querySelector<HTMLMetaElement>('meta[name="kit-api-prefix"]')?.content || '/api'
const client = new KitClient({ prefix, credentials: 'same-origin' })
const session = createSession(client)
const router = createAdminRouter(session)
const lang = createAdminI18n()

const app = createApp(App)
app.provide(sessionKey, session)
app.provide(toastsKey, createToasts())
app.provide(i18nKey, lang)
app.use(lang.i18n)
app.use(router)
app.use(
  createKit({
    client,
    route: router.currentRoute,
    // The components' words and dates in the admin's language.
    t: lang.t,
    locale: lang.intl,
    // The activity log links a record to its collection's page, which opens its form.
    recordLink: (collection, id) => {
      const team = router.currentRoute.value.params.team
      return typeof team === 'string' ? router.resolve({ name: 'collection', params: { team, collection }, query: { record: id } }).href : undefined
    },
  }),
)
app.mount('#app')
