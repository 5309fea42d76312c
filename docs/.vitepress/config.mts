// The documentation site: VitePress over the pages of docs/, with the
// default theme and its local search. `npm run docs:build` in web/ builds
// it (web/docs_test.go runs that and checks every link and anchor).
// This file imports nothing but Node's modules and exports a plain
// object: the packages live in web/node_modules, which is not on this
// folder's path. VitePress resolves its own; the pages' compiled modules
// import vue, which the plugin below resolves as if VitePress imported it.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const docs = join(dirname(fileURLToPath(import.meta.url)), '..')
const webModules = join(docs, '..', 'web', 'node_modules')

// slugify makes heading ids as GitHub does, so that an anchor works on
// the site and on GitHub alike: lower case, punctuation other than - and _
// dropped, each space a hyphen.
export function slugify(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

// title reads a page's first heading.
function title(file: string): string {
  const m = /^# (.+)$/m.exec(readFileSync(join(docs, file), 'utf8'))
  return m ? m[1].replace(/`/g, '') : file
}

const page = (file: string, text?: string) => ({ text: text ?? title(file), link: '/' + file.replace(/\.md$/, '') })
const decisions = readdirSync(join(docs, 'decisions'))
  .filter((f) => /^\d{4}-.*\.md$/.test(f))
  .sort()
  .map((f) => page('decisions/' + f))

export default {
  title: 'kit',
  description: 'Schema files to multi-tenant collections with team-scoped REST endpoints, an audit trail and clients, embedded in your Go app.',
  lang: 'en',
  cleanUrls: true,
  lastUpdated: false,
  // The pages are also read on GitHub; links between them stay relative .md links.
  srcExclude: ['**/node_modules/**'],
  markdown: { anchor: { slugify }, headers: { slugify } },
  vite: {
    plugins: [
      {
        name: 'kit-docs-vue-from-web',
        enforce: 'pre',
        resolveId(this: any, id: string, importer: string | undefined, options: object) {
          if (!importer?.startsWith(docs) || !/^(vue|@vue\/)/.test(id)) return null
          return this.resolve(id, join(webModules, 'vitepress', 'package.json'), { ...options, skipSelf: true })
        },
      },
    ],
  },
  themeConfig: {
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    nav: [
      { text: 'Guide', link: '/getting-started' },
      { text: 'Reference', link: '/http-api' },
      { text: 'GitHub', link: 'https://github.com/collectionkit/kit' },
    ],
    sidebar: [
      {
        text: 'Guide',
        items: [
          page('index.md', 'Overview'),
          page('getting-started.md'),
          page('schemas.md'),
          page('accounts.md'),
          page('testing.md'),
        ],
      },
      {
        text: 'Reference',
        items: [
          page('http-api.md'),
          page('list-queries.md'),
          page('files.md'),
          page('batch.md'),
          page('audit-events.md'),
          page('realtime.md'),
          page('trees.md'),
          page('external.md'),
          page('clients.md'),
          page('admin.md'),
        ],
      },
      {
        text: 'Running it',
        items: [page('operations.md'), page('cli.md'), page('postgresql.md'), page('benchmarks.md')],
      },
      {
        text: 'Design',
        items: [page('architecture.md'), { text: 'Decisions', items: decisions }],
      },
    ],
  },
}
