// Vitest global setup: builds kit from ../cmd/kit (or uses $KIT_BIN), seeds
// a temporary SQLite file with the kit command line, starts `kit serve` on a
// free port with a temporary copy of ../examples/schemas, waits until it
// answers, and provides its address and the seeded ids and tokens to the
// tests (inject('kit')). The server is stopped and the folder removed at the
// end.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import type { TestProject } from 'vitest/node'
import type { KitServerInfo } from './provided'

const run = promisify(execFile)
const repoRoot = resolve(import.meta.dirname, '../..')

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'kit-web-test-'))
  let server: ChildProcess | undefined
  const teardown = async (): Promise<void> => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r))
      server.kill('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
      if (server.exitCode === null) server.kill('SIGKILL')
    }
    await rm(dir, { recursive: true, force: true })
  }
  try {
    const bin = process.env.KIT_BIN || join(dir, 'kit')
    if (!process.env.KIT_BIN) {
      await run('go', ['build', '-o', bin, './cmd/kit'], { cwd: repoRoot })
    }
    const db = join(dir, 'kit.db')
    const kit = async (...args: string[]): Promise<string> => {
      const { stdout } = await run(bin, [...args, '--db', db], { cwd: dir })
      return stdout.trim()
    }

    // The schemas: examples/schemas plus test/notes.json, with categories as a tree (hierarchy)
    // fetched by the `query` strategy and products by `restful`.
    const schemas = join(dir, 'schemas')
    await cp(join(repoRoot, 'examples/schemas'), schemas, { recursive: true })
    const configFile = join(schemas, 'kit.config.json')
    const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, Record<string, unknown>>
    config.shopProducts = { ...config.shopProducts, fetchStrategy: 'restful' }
    config.shopCategories = { ...config.shopCategories, fetchStrategy: 'query', hierarchy: { enabled: true } }
    // testNotes keeps its deletes in the trash (softDelete).
    config.testNotes = { ...config.testNotes, softDelete: true }
    // testMedia: a media collection with thumbnails and a list of files.
    config.testMedia = { ...config.testMedia, kind: 'media', display: { title: 'title', image: 'photo' } }
    await writeFile(configFile, JSON.stringify(config, null, 2))
    // testNotes: records without a title (a reference select offers none of them), soft-deleted.
    await mkdir(join(schemas, 'test'))
    await writeFile(join(schemas, 'test', 'notes.json'), JSON.stringify({ body: { type: 'string', meta: { label: 'Body' } } }))
    await writeFile(
      join(schemas, 'test', 'media.json'),
      JSON.stringify({
        title: { type: 'string', meta: { label: 'Title' } },
        photo: { type: 'image', meta: { label: 'Photo', thumbs: ['64x64'] } },
        attachments: { type: 'file', meta: { label: 'Attachments', multiple: true } },
      }),
    )

    const acme = await kit('team', 'create', '--name', 'Acme', '--slug', 'acme')
    const globex = await kit('team', 'create', '--name', 'Globex', '--slug', 'globex')
    const ann = await kit('user', 'create', '--name', 'Ann')
    const bea = await kit('user', 'create', '--name', 'Bea')
    const gus = await kit('user', 'create', '--name', 'Gus')
    const root = await kit('user', 'create', '--name', 'Root', '--role', 'admin')
    await kit('member', 'add', '--team', 'acme', '--user', ann, '--role', 'owner')
    await kit('member', 'add', '--team', 'acme', '--user', bea, '--role', 'member')
    await kit('member', 'add', '--team', 'globex', '--user', gus, '--role', 'owner')
    const tokens = {
      ann: await kit('token', 'create', '--user', ann),
      bea: await kit('token', 'create', '--user', bea),
      gus: await kit('token', 'create', '--user', gus),
      root: await kit('token', 'create', '--user', root),
    }

    server = spawn(bin, ['serve', '--db', db, '--schemas', schemas, '--addr', '127.0.0.1:0', '--backups', join(dir, 'backups'), '--backup-every', '0'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    server.stderr!.on('data', (b: Buffer) => {
      stderr += b.toString()
    })
    const baseURL = await new Promise<string>((resolveURL, reject) => {
      let out = ''
      const timer = setTimeout(() => reject(new Error(`kit serve did not start in 30s:\n${stderr}`)), 30_000)
      server!.stdout!.on('data', (b: Buffer) => {
        out += b.toString()
        const m = /on (http:\/\/[^\s]+?)\/api\b/.exec(out)
        if (m) {
          clearTimeout(timer)
          resolveURL(m[1]!)
        }
      })
      server!.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`kit serve exited with ${code}:\n${stderr}`))
      })
    })
    // It prints its address once listening; wait until it answers too.
    for (let i = 0; ; i++) {
      const ok = await fetch(`${baseURL}/healthz`).then((r) => r.ok, () => false)
      if (ok) break
      if (i > 100) throw new Error(`kit serve does not answer on ${baseURL}:\n${stderr}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    const info: KitServerInfo = { baseURL, teams: { acme, globex }, users: { ann, bea, gus, root }, tokens }
    project.provide('kit', info)
  } catch (err) {
    await teardown()
    throw err
  }
  return teardown
}
