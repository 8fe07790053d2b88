import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CLI_OPTIONS } from '../src/process/cli-options.js'
import { USER_FILE_SCHEMA } from '../src/process/config/file-schema.js'

const root = new URL('../', import.meta.url).pathname

describe('docs/configuration.md', () => {
  it('is what scripts/generate-config-doc.mjs writes from the options tables and the schemas', () => {
    const check = spawnSync(process.execPath, ['scripts/generate-config-doc.mjs', '--check'], {
      cwd: root,
      encoding: 'utf8',
    })
    expect(check.stderr).toBe('')
    expect(check.status).toBe(0)
  })

  it('lists every flag and every property of the configuration file', () => {
    const doc = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8')
    for (const option of CLI_OPTIONS) expect(doc).toContain(`--${option.name}`)
    for (const name of Object.keys(USER_FILE_SCHEMA.properties).filter((n) => n !== '$schema'))
      expect(doc).toContain(`| \`${name}\``)
  })
})
