import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { describe, expect, it } from 'vitest'

const addFormats = addFormatsModule.default
const root = resolve(import.meta.dirname, '..')
const read = (path: string) => readFileSync(resolve(root, path), 'utf8')

describe('the ACP Registry manifest (registry/dsh-acp/agent.json)', () => {
  const manifest = JSON.parse(read('registry/dsh-acp/agent.json'))

  it("is valid against the registry's own schema (vendored in test/fixtures/acp-registry)", () => {
    const ajv = new Ajv({ allErrors: true, strict: false })
    addFormats(ajv)
    const validate = ajv.compile(JSON.parse(read('test/fixtures/acp-registry/agent.schema.json')))
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true)
  })

  it('names this package at its version, run by npx, in a directory named by its id', () => {
    const pkg = JSON.parse(read('package.json'))
    expect(manifest.id).toBe('dsh-acp')
    expect(manifest.version).toBe(pkg.version)
    expect(manifest.license).toBe(pkg.license)
    expect(manifest.distribution).toEqual({ npx: { package: `${pkg.name}@${pkg.version}` } })
    expect(pkg.bin[pkg.name]).toBeDefined()
  })

  it('has the icon the registry requires: 16x16 SVG in currentColor only', () => {
    const icon = read('registry/dsh-acp/icon.svg')
    expect(icon).toMatch(/^<svg [^>]*width="16" height="16"/)
    expect(icon).toContain('currentColor')
    expect(icon).not.toMatch(/#[0-9a-f]{3,6}\b|rgb\(/i)
  })
})

describe('the release number has one source: package.json', () => {
  it('`npm version` rewrites the manifest from package.json, and the manifest is what it writes', () => {
    const pkg = JSON.parse(read('package.json'))
    expect(pkg.scripts.version).toContain('scripts/sync-registry-version.mjs')
    const before = read('registry/dsh-acp/agent.json')
    execFileSync(process.execPath, [resolve(root, 'scripts/sync-registry-version.mjs')])
    expect(read('registry/dsh-acp/agent.json')).toBe(before)
    expect(JSON.parse(before).version).toBe(pkg.version)
  })
})
