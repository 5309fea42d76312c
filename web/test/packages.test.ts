// @collectionkit/client and @collectionkit/vue as an app outside the
// repository gets them: built (npm run build), packed (npm pack), and
// installed from the two tarballs into a fresh project in the system's
// temporary folder, where nothing of the workspace can be resolved, with
// only the packages' declared dependencies (and TypeScript, the app's own
// tool). tsc type-checks test/installed/use.ts against the installed
// declarations, as Node resolves modules (NodeNext, through each package's
// `exports`) and as bundlers do, and node runs it against the test's kit
// serve: CRUD and a change subscription through the client, a list and a
// delete through the Vue composables.
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, inject, it } from 'vitest'
import './provided'

const run = promisify(execFile)
const web = resolve(import.meta.dirname, '..')

// npm runs npm in dir and returns its standard output; a failure carries
// npm's output.
async function npm(dir: string, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('npm', args, {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', SCARF_ANALYTICS: 'false', npm_config_update_notifier: 'false' },
      maxBuffer: 64 << 20,
    })
    return stdout
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string }
    throw new Error(`npm ${args.join(' ')} in ${dir}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`)
  }
}

interface Packed {
  name: string
  filename: string
  files: { path: string }[]
}

interface Manifest {
  name: string
  engines?: { node?: string }
  exports?: Record<string, unknown>
  types?: string
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  devDependencies?: Record<string, string>
}

describe('the packed packages', () => {
  it('install outside the workspace, type-check and run CRUD and a change subscription against kit serve', async () => {
    const kit = inject('kit')
    const dir = await mkdtemp(join(tmpdir(), 'kit-packages-'))
    try {
      // One after the other: vue's bundle leaves the client out, but its
      // declarations are checked against the client's, which the client's
      // build empties and writes again.
      await npm(web, 'run', 'build', '--workspace', 'client')
      await npm(web, 'run', 'build', '--workspace', 'vue')
      const packs = join(dir, 'packs')
      await mkdir(packs)
      const packed = JSON.parse(
        await npm(web, 'pack', '--json', '--workspace', 'client', '--workspace', 'vue', '--pack-destination', packs),
      ) as Packed[]
      expect(packed.map((p) => p.name)).toEqual(['@collectionkit/client', '@collectionkit/vue'])
      for (const p of packed) {
        const files = p.files.map((f) => f.path)
        expect(files, p.name).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']))
        expect(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE', 'tailwind.css'].includes(f)), p.name).toEqual([])
      }

      const app = join(dir, 'app')
      await mkdir(app)
      await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'kit-packages-app', private: true, type: 'module' }))
      const typescript = (JSON.parse(await readFile(join(web, 'node_modules/typescript/package.json'), 'utf8')) as { version: string }).version
      await npm(app, 'install', '--no-audit', '--no-fund', ...packed.map((p) => join(packs, p.filename)), `typescript@${typescript}`)

      // The installed manifests: exports with types, honest engines, and
      // nothing but what they declare (the workspace's dev tools are absent).
      const installed = await Promise.all(
        packed.map(async (p) => JSON.parse(await readFile(join(app, 'node_modules', p.name, 'package.json'), 'utf8')) as Manifest),
      )
      const nodeMajor = Number(process.versions.node.split('.')[0])
      for (const m of installed) {
        expect(m.exports?.['.'], m.name).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' })
        expect(m.engines?.node, m.name).toBe('>=20')
        expect(m.devDependencies, m.name).toBeUndefined()
      }
      expect(nodeMajor).toBeGreaterThanOrEqual(20)
      const has = (name: string): Promise<boolean> =>
        readdir(join(app, 'node_modules', name)).then(
          () => true,
          () => false,
        )
      for (const devOnly of ['vitest', 'vite', 'happy-dom', '@vitejs/plugin-vue', 'vue-tsc', '@vue/test-utils', '@types/node']) {
        expect(await has(devOnly), `the workspace's ${devOnly} is installed`).toBe(false)
      }
      const top = await readdir(join(app, 'node_modules'))
      expect(top).toContain('vue') // the peer dependency of @collectionkit/vue, installed by npm

      // The declarations as Node resolves modules (NodeNext, which also
      // emits the program) and as bundlers do (Bundler).
      await copyFile(join(web, 'test/installed/use.ts'), join(app, 'use.ts'))
      const common = { strict: true, target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] }
      const configs = [
        ['tsconfig.json', { ...common, module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'out' }],
        ['tsconfig.bundler.json', { ...common, module: 'ESNext', moduleResolution: 'Bundler', noEmit: true }],
      ] as const
      const checked = await Promise.all(
        configs.map(async ([file, options]) => {
          await writeFile(join(app, file), JSON.stringify({ compilerOptions: options, files: ['use.ts'] }))
          return run(join(app, 'node_modules/.bin/tsc'), ['-p', join(app, file)], { cwd: app }).then(
            () => `${file}: ok`,
            (err: { stdout?: string; message: string }) => `${file}: ${err.stdout || err.message}`,
          )
        }),
      )
      expect(checked).toEqual(['tsconfig.json: ok', 'tsconfig.bundler.json: ok'])

      const { stdout } = await run(process.execPath, [join(app, 'out/use.js')], {
        cwd: app,
        env: { ...process.env, KIT_URL: kit.baseURL, KIT_TOKEN: kit.tokens.ann, KIT_TEAM: 'acme' },
        timeout: 60_000,
      }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`node out/use.js: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`)
      })
      expect(JSON.parse(stdout)).toEqual({
        created: ['Lamp M', 'Shade M'],
        filtered: 1,
        updatedStock: 4,
        refused: 400,
        vueTitles: ['Lamp M', 'Shade M'],
        vueAfterDelete: 0,
        streamed: ['create', 'delete', 'update'],
      })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 600_000)
})
