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
