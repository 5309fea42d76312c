// Usage: node scripts/declaration-imports.mjs DIR...
//
// Rewrites the relative module specifiers in the declaration files
// (*.d.ts) under each DIR (a package's dist/) so that each names the file
// it means with a .js extension, as Node's ES module resolution requires
// and TypeScript checks under moduleResolution node16 and nodenext:
// './client' becomes './client.js' (client.d.ts is there), './components'
// './components/index.js' (components/index.d.ts), and
// './components/KitCard.vue' './components/KitCard.vue.js'
// (KitCard.vue.d.ts, as vue-tsc writes it). Bundler resolution reads the
// new specifiers as it read the old. tsc and vue-tsc keep the extensionless
// specifiers of the sources, which Vite needs as they are. A specifier that
// names no declaration file is an error, and nothing is written.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

const specifier = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]*)\2/g

async function exists(path) {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  )
}

async function declarations(dir) {
  const out = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await declarations(path)))
    else if (entry.name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

// target returns the specifier with its extension, or undefined when no
// declaration file answers it.
async function target(file, spec) {
  const base = join(dirname(file), spec)
  if (spec.endsWith('.js')) return (await exists(base.slice(0, -3) + '.d.ts')) ? spec : undefined
  if (await exists(base + '.d.ts')) return spec + '.js'
  if (await exists(join(base, 'index.d.ts'))) return spec + '/index.js'
  return undefined
}

const dirs = process.argv.slice(2)
if (dirs.length === 0) {
  console.error('usage: node scripts/declaration-imports.mjs DIR...')
  process.exit(2)
}
const changes = new Map()
const problems = []
for (const dir of dirs) {
  for (const file of await declarations(dir)) {
    const text = await readFile(file, 'utf8')
    const found = new Map()
    for (const m of text.matchAll(specifier)) {
      const spec = m[3]
      if (found.has(spec)) continue
      const to = await target(file, spec)
      if (to === undefined) problems.push(`${file}: ${spec} names no declaration file`)
      found.set(spec, to)
    }
    const next = text.replace(specifier, (all, lead, quote, spec) => `${lead}${quote}${found.get(spec) ?? spec}${quote}`)
    if (next !== text) changes.set(file, next)
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'))
  process.exit(1)
}
for (const [file, text] of changes) await writeFile(file, text)
