import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import vue from '@vitejs/plugin-vue'
import { defineConfig } from 'vite'

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url))

// The admin app builds into the repository's top-level admin/dist, which
// the Go package admin embeds. The base is relative: admin.Handler rewrites
// index.html's <base href> to wherever it is mounted, so one build works
// under any prefix. File names carry content hashes only (no timestamps),
// so a fresh build of the same sources gives the same files.
export default defineConfig({
  base: './',
  plugins: [vue(), tailwindcss()],
  // vue-i18n's build flags: the Composition API only (no legacy API, no
  // global components), no devtools; messages compile at run time without
  // eval, which the admin's Content Security Policy forbids.
  define: {
    __VUE_I18N_FULL_INSTALL__: false,
    __VUE_I18N_LEGACY_API__: false,
    __INTLIFY_PROD_DEVTOOLS__: false,
  },
  resolve: {
    alias: {
      '@collectionkit/client': src('../client/src/index.ts'),
      '@collectionkit/vue': src('../vue/src/index.ts'),
    },
  },
  build: {
    outDir: src('../../admin/dist'),
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: true,
    assetsDir: 'assets',
  },
})
