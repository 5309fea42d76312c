import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// One kit server (built from ../cmd/kit, on a temporary SQLite file) serves
// every test file; see test/kit-server.ts.
export default defineConfig({
  resolve: {
    alias: {
      '@collectionkit/client': fileURLToPath(new URL('./client/src/index.ts', import.meta.url)),
      '@collectionkit/vue': fileURLToPath(new URL('./vue/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['client/test/**/*.test.ts', 'vue/test/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['./test/kit-server.ts'],
    testTimeout: 15_000,
    hookTimeout: 120_000,
  },
})
