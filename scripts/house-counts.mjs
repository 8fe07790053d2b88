#!/usr/bin/env node
// Prints the house counts of issue 33 for the production sources under src/ (tests and generated
// *.gen.ts files excluded): files over 300 lines, functions over 40 lines, functions with five or
// more parameters, `as never` / `as unknown as` casts, the widest folder root, and README size.
// Duplicated runs come from the `duplicates` command and suite time from a test run; neither is here.
//
// Usage: node scripts/house-counts.mjs [--list]   (--list names every file and function counted)
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

const root = new URL('..', import.meta.url).pathname
const list = process.argv.includes('--list')

const FILE_LINES = 300
const FUNCTION_LINES = 40
const PARAMETERS = 5

const folders = []
function walk(dir) {
  folders.push(dir)
  const files = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...walk(path))
    else files.push(path)
  }
  return files
}

const isSource = (path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.gen.ts')
const lineCount = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0)

function functionName(node, file) {
  if (node.name) return node.name.getText(file)
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const parent = node.parent
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText(file)
  }
  return '(anonymous)'
}

function functionsOf(file) {
  const found = []
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line
      found.push({
        name: functionName(node, file),
        line: start + 1,
        lines: end - start + 1,
        parameters: node.parameters.length,
      })
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return found
}

const sources = walk(join(root, 'src')).filter(isSource).sort()
const longFiles = []
const longFunctions = []
const wideFunctions = []
const casts = []
const roots = new Map()
let totalLines = 0

for (const path of sources) {
  const name = relative(root, path)
  const text = readFileSync(path, 'utf8')
  const lines = lineCount(text)
  totalLines += lines
  if (lines > FILE_LINES) longFiles.push(`${name} (${lines})`)
  const folder = relative(root, join(path, '..'))
  roots.set(folder, (roots.get(folder) ?? 0) + 1)
  text.split('\n').forEach((line, index) => {
    for (const cast of line.match(/\bas never\b|\bas unknown as\b/g) ?? []) {
      casts.push(`${name}:${index + 1} ${cast}`)
    }
  })
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  for (const fn of functionsOf(file)) {
    const where = `${name}:${fn.line} ${fn.name}`
    if (fn.lines > FUNCTION_LINES) longFunctions.push(`${where} (${fn.lines} lines)`)
    if (fn.parameters >= PARAMETERS) wideFunctions.push(`${where} (${fn.parameters} parameters)`)
  }
}

const [widest, widestCount] = [...roots].sort((a, b) => b[1] - a[1])[0]
const readme = readFileSync(join(root, 'README.md'), 'utf8')

const rows = [
  ['source files (src, no tests, no .gen.ts)', sources.length],
  ['source lines', totalLines],
  [`files over ${FILE_LINES} lines`, longFiles.length, longFiles],
  [`functions over ${FUNCTION_LINES} lines`, longFunctions.length, longFunctions],
  [`functions with ${PARAMETERS}+ parameters`, wideFunctions.length, wideFunctions],
  ['`as never` / `as unknown as` casts', casts.length, casts],
  ['folders under src (src included)', folders.length],
  ['widest folder root', `${widest} (${widestCount} files)`],
  ['README.md', `${lineCount(readme)} lines, ${statSync(join(root, 'README.md')).size} bytes`],
]
for (const [label, value, names] of rows) {
  console.log(`${label}: ${value}`)
  if (list && names) for (const entry of names) console.log(`  ${entry}`)
}
