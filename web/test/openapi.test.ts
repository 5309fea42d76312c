// The OpenAPI document kit serves (GET /api/kit/openapi.json on the running
// kit serve: the example schemas with categories as a tree, and the events
// add-on), checked by real tools: @readme/openapi-parser validates it as
// OpenAPI 3.1, Spectral's spectral:oas ruleset finds nothing to report, and
// openapi-typescript turns it into TypeScript that tsc compiles together
// with a small file that uses it.
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { validate, compileErrors } from '@readme/openapi-parser'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import './provided'

const run = promisify(execFile)
const bin = (name: string): string => resolve(import.meta.dirname, '../node_modules/.bin', name)

// usage is a client module written against the generated types. Each line
// marked with a ts-expect-error directive must be an error for tsc to pass,
// so the types are checked to be exact, not merely present.
const usage = `import type { components, operations, paths } from './schema'

type Product = components['schemas']['Product']
type ProductInput = components['schemas']['ProductInput']
type ProductQuery = NonNullable<operations['listShopProducts']['parameters']['query']>
type ProductResponse = components['schemas']['ProductResponse']
type Category = components['schemas']['Category']
type KitError = components['schemas']['KitError']

export const input: ProductInput = { title: 'Desk lamp', price: '19.90', releasedAt: '2026-01-02T00:00:00Z', categoryId: null }
// @ts-expect-error a create body needs its required title
export const noTitle: ProductInput = { price: '1.00' }
// @ts-expect-error a create body holds only the schema's fields
export const unknownField: ProductInput = { title: 'x', colour: 'red' }

export function firstTitle(page: ProductResponse): string {
  const first: Product | undefined = page.items[0]
  return first ? first.title + ' ' + first.id + ' ' + page.pagination.totalItems : ''
}
// A decimal is a string on the wire, a date an RFC 3339 string.
export const price = (p: Product): string | null => p.price
// @ts-expect-error a decimal is not a number in a record
export const priceNumber = (p: Product): number => p.price
export const parentOf = (c: Category): string | null => c.parentId

export const query: ProductQuery = { search: 'lamp', pageSize: 20, sort: '-price,title', sortDirection: 'desc' }
// @ts-expect-error sortDirection is asc or desc
export const badDirection: ProductQuery = { sortDirection: 'up' }

type ListParams = paths['/api/teams/{team}/shop-products']['get']['parameters']
export const listParams: ListParams = { path: { team: 'acme' }, query: { page: 2, filter: '{"isActive":true}' } }
type Created = paths['/api/teams/{team}/shop-products']['post']['responses'][201]['content']['application/json']
export const created = (c: Created): Product => c
type Stale = operations['updateShopProducts']['responses'][412]['content']['application/json']
export const stale = (e: Stale): KitError => e
type Moved = operations['moveShopCategories']['requestBody']
export const move: NonNullable<Moved>['content']['application/json'] = { parentId: null, order: 0 }
type Events = paths['/api/teams/{team}/kit-events']['get']['responses'][200]['content']['application/json']
export const eventOps = (e: Events): string[] => e.items.map((ev) => ev.operation)
`

describe('the OpenAPI document', () => {
  let dir = ''
  let doc: Record<string, unknown> = {}
  beforeAll(async () => {
    const kit = inject('kit')
    const res = await fetch(`${kit.baseURL}/api/kit/openapi.json`, { headers: { Authorization: `Bearer ${kit.tokens.ann}` } })
    expect(res.status).toBe(200)
    doc = (await res.json()) as Record<string, unknown>
    dir = await mkdtemp(join(tmpdir(), 'kit-openapi-'))
  })
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('is valid OpenAPI 3.1 for @readme/openapi-parser', async () => {
    expect(doc.openapi).toBe('3.1.1')
    const result = await validate(structuredClone(doc) as never)
    expect(result.valid ? '' : compileErrors(result)).toBe('')
    expect(result.valid).toBe(true)
  })

  // spectral lints document with the spectral:oas ruleset and returns its
  // findings, one line each ("<severity> <rule> at <path>: <message>").
  const spectral = async (document: unknown, name: string): Promise<string[]> => {
    const docFile = join(dir, name)
    const ruleset = join(dir, '.spectral.yaml')
    await writeFile(docFile, JSON.stringify(document, null, 2))
    await writeFile(ruleset, "extends: ['spectral:oas']\n")
    const { stdout } = await run(bin('spectral'), ['lint', '--ruleset', ruleset, '--format', 'json', '--quiet', docFile], {
      env: { ...process.env, SCARF_ANALYTICS: 'false' },
    }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      // spectral exits 1 when it reports an error; its findings are still on stdout.
      if (err.stdout) return { stdout: err.stdout }
      throw new Error(err.stderr || err.message)
    })
    const findings = JSON.parse(stdout || '[]') as { code: string; severity: number; message: string; path: string[] }[]
    return findings.map((f) => `${['error', 'warning', 'information', 'hint'][f.severity]} ${f.code} at ${f.path.join('.')}: ${f.message}`)
  }

  it("has no error, warning, information or hint for Spectral's spectral:oas ruleset", async () => {
    expect(await spectral(doc, 'spectral-openapi.json')).toEqual([])
  }, 120_000)

  it('is refused by Spectral when an operation has no description', async () => {
    const broken = structuredClone(doc) as { paths: Record<string, Record<string, { description?: string }>> }
    delete broken.paths['/api/me']!.get!.description
    expect(await spectral(broken, 'spectral-broken.json')).toEqual([
      'warning operation-description at paths./api/me.get: Operation "description" must be present and non-empty string.',
    ])
  }, 120_000)

  it('is refused by the validator when two operations share an id', async () => {
    const broken = structuredClone(doc) as { paths: Record<string, Record<string, { operationId: string }>> }
    broken.paths['/api/me']!.get!.operationId = broken.paths['/api/me']!.patch!.operationId
    const result = await validate(broken as never)
    expect(result.valid).toBe(false)
  })

  it('becomes TypeScript through openapi-typescript that tsc compiles with a file using it', async () => {
    const docFile = join(dir, 'openapi.json')
    await writeFile(docFile, JSON.stringify(doc))
    await run(bin('openapi-typescript'), [docFile, '--output', join(dir, 'schema.d.ts')])
    await writeFile(join(dir, 'use.ts'), usage)
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', types: [] },
        files: ['use.ts', 'schema.d.ts'],
      }),
    )
    const tsc = await run(bin('tsc'), ['-p', join(dir, 'tsconfig.json')]).then(
      () => '',
      (err: { stdout?: string; message: string }) => err.stdout || err.message,
    )
    expect(tsc).toBe('')
  }, 300_000) // both tools load the TypeScript compiler: slow on a busy 2-core machine
})
