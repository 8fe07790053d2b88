import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { parseCli } from '../cli-args.js'
import { configFileSchema, projectFileSchema } from './file-schema.js'
import { resolveConfig } from './resolve.js'

const published = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../schemas/${name}.schema.json`, import.meta.url), 'utf8'))

/** A configuration file with every field set. */
const EVERYTHING = {
  $schema: 'https://dsh-acp.dev/schemas/config-file.schema.json',
  providers: {
    deepseek: {
      title: 'DeepSeek',
      baseUrl: 'https://api.deepseek.com/v1',
      apiKeyEnv: 'DEEPSEEK_API_KEY',
      keyRequired: true,
      models: [
        {
          name: 'deepseek-chat',
          title: 'DeepSeek Chat',
          contextWindow: 128000,
          prices: { input: 0.27, cachedInput: 0.07, output: 1.1, currency: 'USD' },
          imageInput: false,
          reasoningEffort: 'medium',
        },
      ],
    },
  },
  defaultModel: 'deepseek/deepseek-chat',
  defaultMode: 'accept-edits',
  mcpServers: [
    { name: 'files', command: 'mcp-files', args: ['--root', '.'], env: [{ name: 'TOKEN', value: 'x' }] },
    {
      type: 'http',
      name: 'docs',
      url: 'https://example.com/mcp',
      headers: [{ name: 'Authorization', value: 'y' }],
    },
  ],
  limits: {
    maxSteps: 40,
    mcpTimeoutMs: 30000,
    maxRetries: 2,
    requestTimeout: 120,
    maxLineBytes: 65536,
    maxSubagents: 2,
    subagentMaxSteps: 10,
  },
  sandbox: { mode: 'auto', network: false },
  logLevel: 'debug',
}

describe('schemas/config-file.schema.json and project-config.schema.json', () => {
  it('are what npm run generate:config writes, and so are their standalone validators', () => {
    expect(published('config-file')).toEqual(configFileSchema())
    expect(published('project-config')).toEqual(projectFileSchema())
    const root = new URL('../../../', import.meta.url).pathname
    const check = spawnSync(process.execPath, ['scripts/generate-config-schema.mjs', '--check'], {
      cwd: root,
      encoding: 'utf8',
    })
    expect(check.stderr).toBe('')
    expect(check.status).toBe(0)
  })

  it('accept a file with every field, which the server then reads without a problem', async () => {
    const validate = new Ajv2020({ strict: false }).compile(published('config-file'))
    expect(validate(EVERYTHING), JSON.stringify(validate.errors)).toBe(true)
    const home = mkdtempSync(join(tmpdir(), 'dsh-acp-schema-'))
    mkdirSync(join(home, 'cfg', 'dsh-acp'), { recursive: true })
    writeFileSync(join(home, 'cfg', 'dsh-acp', 'config.json'), JSON.stringify(EVERYTHING))
    const resolved = await resolveConfig({
      argv: [],
      parsed: parseCli([]),
      env: { XDG_CONFIG_HOME: join(home, 'cfg') },
      cwd: home,
      home,
    })
    expect(resolved.problems).toEqual([])
    expect(resolved.options).toMatchObject({ maxSteps: 40, sandboxNetwork: false, logLevel: 'debug' })
    expect(resolved.defaultMode).toBe('accept-edits')
    expect(resolved.fileModels?.models.map((m) => m.id)).toEqual(['deepseek/deepseek-chat'])
  })
})
