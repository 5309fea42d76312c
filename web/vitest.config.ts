import vue from '@vitejs/plugin-vue'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// One kit server (built from ../cmd/kit, on a temporary SQLite file) serves
// every test file; see test/kit-server.ts. The suites run without a DOM; the
// component tests (vue/test/components/) opt into happy-dom with a
// `// @vitest-environment happy-dom` comment at the top of the file.
export default defineConfig({
  plugins: [vue()],
  resolve: {
    alias: {
      '@collectionkit/client': fileURLToPath(new URL('./client/src/index.ts', import.meta.url)),
      '@collectionkit/vue': fileURLToPath(new URL('./vue/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['client/test/**/*.test.ts', 'vue/test/**/*.test.ts', 'admin/test/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    // happy-dom's fetch applies the browser's same-origin policy; the kit
    // server the component tests talk to is another origin and sends no
    // CORS headers (a same-origin admin needs none).
    environmentOptions: { happyDOM: { settings: { fetch: { disableSameOriginPolicy: true } } } },
    globalSetup: ['./test/kit-server.ts'],
    testTimeout: 15_000,
    hookTimeout: 120_000,
  },
})
