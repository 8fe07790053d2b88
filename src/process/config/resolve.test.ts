import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseCli } from '../cli-args.js'
import { trustFile, writeDecision } from '../trust/trust-store.js'
import { resolveConfig } from './resolve.js'

/**
 * A fresh home with a config home, a project (a git repository) and a directory inside it. The
 * project's folder is trusted unless `trusted` is false (its file is ignored otherwise).
 */
function scene(user?: unknown, project?: unknown, trusted = true) {
  const home = mkdtempSync(join(tmpdir(), 'dsh-acp-resolve-'))
  const configHome = join(home, 'cfg')
  const root = join(home, 'work', 'repo')
  const cwd = join(root, 'src', 'deep')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(join(root, '.git'))
  mkdirSync(join(configHome, 'dsh-acp'), { recursive: true })
  if (user !== undefined) write(join(configHome, 'dsh-acp', 'config.json'), user)
  if (project !== undefined) {
    mkdirSync(join(root, '.dsh-acp'))
    write(join(root, '.dsh-acp', 'config.json'), project)
  }
  if (trusted) {
    const file = trustFile({ XDG_CONFIG_HOME: configHome }, home)
    writeDecision(file, realpathSync(root), {
      decision: 'trusted',
      scope: 'repo',
      at: new Date().toISOString(),
    })
  }
  const resolve = (argv: string[] = []) =>
    resolveConfig({ argv, parsed: parseCli(argv), env: { XDG_CONFIG_HOME: configHome }, cwd, home })
  return { home, configHome, root, cwd, resolve }
}

function write(file: string, value: unknown) {
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value))
}

const PROVIDERS = {
  deepseek: {
    baseUrl: 'https://api.deepseek.com/v1',
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    models: [
      {
        name: 'deepseek-chat',
        contextWindow: 128000,
        prices: { input: 0.27, cachedInput: 0.07, output: 1.1 },
      },
      { name: 'deepseek-reasoner', reasoningEffort: 'high' },
    ],
  },
  local: { baseUrl: 'http://127.0.0.1:11434/v1', keyRequired: false, models: [{ name: 'qwen' }] },
}

describe('the effective configuration: flags over the project file over the user file over defaults', () => {
  it('with no file, is the flags and the built-in defaults (the offline echo model)', async () => {
    const resolved = await scene().resolve()
    expect(resolved.options.model).toBe('echo')
    expect(resolved.fileModels).toBeUndefined()
    expect(resolved.problems).toEqual([])
    expect(resolved.sources.get('limits.maxSteps')).toEqual({ kind: 'default' })
  })

  it("ignores an untrusted folder's project file at start, naming it, until the folder is trusted", async () => {
    const s = scene(
      { limits: { maxSteps: 10 } },
      { limits: { maxSteps: 20 }, defaultMode: 'accept-edits' },
      false,
    )
    const resolved = await s.resolve()
    expect(resolved.options.maxSteps).toBe(10)
    expect(resolved.defaultMode).toBeUndefined()
    expect(resolved.files.project).toBeUndefined()
    expect(resolved.files.ignoredProject).toBe(join(realpathSync(s.root), '.dsh-acp', 'config.json'))
    expect(resolved.problems).toEqual([])
  })

  it('takes limits from the user file, the project file over it, and a flag over both', async () => {
    const s = scene(
      {
        limits: { maxSteps: 10, maxRetries: 1, maxSubagents: 2 },
        sandbox: { mode: 'off' },
        logLevel: 'debug',
      },
      { limits: { maxSteps: 20 } },
    )
    const files = await s.resolve()
    expect(files.options.maxSteps).toBe(20)
    expect(files.sources.get('limits.maxSteps')?.kind).toBe('project-file')
    expect(files.options.maxRetries).toBe(1)
    expect(files.sources.get('limits.maxRetries')?.kind).toBe('user-file')
    expect(files.options.subagents).toEqual({ maxConcurrent: 2 })
    expect(files.options.sandbox).toBe('off')
    expect(files.options.logLevel).toBe('debug')
    const flags = await s.resolve(['--max-steps', '5', '--sandbox', 'auto', '--no-subagents'])
    expect(flags.options.maxSteps).toBe(5)
    expect(flags.sources.get('limits.maxSteps')).toEqual({ kind: 'flag', flag: '--max-steps' })
    expect(flags.options.sandbox).toBe('auto')
    expect(flags.options.subagents).toBe(false)
  })

  it("offers the files' models, the default first (the project's choice over the user's); a model flag wins", async () => {
    const s = scene(
      { providers: PROVIDERS, defaultModel: 'deepseek/deepseek-reasoner' },
      { defaultModel: 'local/qwen' },
    )
    const resolved = await s.resolve()
    expect(resolved.options.model).toBe('openai')
    expect(resolved.fileModels?.models.map((m) => m.id)).toEqual([
      'local/qwen',
      'deepseek/deepseek-chat',
      'deepseek/deepseek-reasoner',
    ])
    expect(resolved.fileModels?.defaultSource.kind).toBe('project-file')
    const flags = await s.resolve(['--model', 'echo', '--model-name', 'echo,echo-large'])
    expect(flags.fileModels).toBeUndefined()
    expect(flags.options.model).toBe('echo')
    expect(flags.sources.get('model')).toEqual({ kind: 'flag', flag: '--model' })
  })

  it("applies a model flag over the files' models field by field; only a server flag replaces them", async () => {
    const s = scene({ providers: PROVIDERS, defaultModel: 'deepseek/deepseek-chat' })
    const named = await s.resolve(['--model-name', 'other,qwen,deepseek/deepseek-reasoner', '--image-input'])
    expect(named.options.model).toBe('openai')
    expect(named.fileModels?.models.map((m) => [m.id, m.provider.baseUrl, m.model.imageInput])).toEqual([
      ['deepseek/other', PROVIDERS.deepseek.baseUrl, true],
      ['local/qwen', PROVIDERS.local.baseUrl, true],
      ['deepseek/deepseek-reasoner', PROVIDERS.deepseek.baseUrl, true],
    ])
    expect(named.fileModels?.defaultSource).toEqual({ kind: 'flag', flag: '--model-name' })
    expect(named.sources.get('model')).toEqual({ kind: 'flag', flag: '--model-name' })
    const windowOnly = await s.resolve(['--context-window', '1000'])
    expect(windowOnly.fileModels?.models[0]?.id).toBe('deepseek/deepseek-chat')
    const server = await s.resolve(['--model', 'openai', '--base-url', 'http://127.0.0.1:1/v1'])
    expect(server.fileModels).toBeUndefined()
    expect(server.sources.get('model')).toEqual({ kind: 'flag', flag: '--model' })
  })

  it('says when the default model names no configured model, and uses the first', async () => {
    const resolved = await scene({ providers: PROVIDERS, defaultModel: 'deepseek/nope' }).resolve()
    expect(resolved.fileModels?.models[0]?.id).toBe('deepseek/deepseek-chat')
    expect(resolved.problems).toMatchObject([{ pointer: '/defaultModel' }])
    expect(resolved.problems[0]?.message).toContain(
      'deepseek/deepseek-chat, deepseek/deepseek-reasoner, local/qwen',
    )
  })
})

describe('a bad file is ignored with a problem naming the file, the JSON pointer and what was expected', () => {
  it('is not JSON', async () => {
    const s = scene('{"limits": {')
    const resolved = await s.resolve()
    expect(resolved.options.model).toBe('echo')
    expect(resolved.problems).toHaveLength(1)
    expect(resolved.problems[0]).toMatchObject({
      file: join(s.configHome, 'dsh-acp', 'config.json'),
      pointer: '',
    })
    expect(resolved.problems[0]?.message).toMatch(/^is not valid JSON/)
  })

  it('has values of the wrong type, unknown properties and a provider without models', async () => {
    const resolved = await scene({
      limits: { maxSteps: 'ten', maxRetries: -1 },
      defaultMode: 'yolo',
      colour: 'blue',
      providers: { deepseek: { baseUrl: 'https://api.deepseek.com/v1' } },
      mcpServers: [{ name: 'x' }],
    }).resolve()
    const byPointer = Object.fromEntries(resolved.problems.map((p) => [p.pointer, p.message]))
    expect(byPointer).toEqual({
      '/limits/maxSteps': 'expected an integer',
      '/limits/maxRetries': 'expected a number of at least 0',
      '/defaultMode': 'expected one of "ask", "accept-edits", "read-only"',
      '/colour': expect.stringMatching(/^unknown property "colour" \(expected one of \$schema, providers, /),
      '/providers/deepseek': 'the property "models" is required',
      '/mcpServers/0': expect.stringContaining('expected an MCP server'),
    })
    expect(resolved.options.maxSteps).toBeUndefined()
  })

  it('refuses a key, or providers, in a project file', async () => {
    const s = scene(undefined, { providers: PROVIDERS, mcpServers: [], limits: { apiKey: 'sk-x' } })
    const resolved = await s.resolve()
    expect(resolved.problems.map((p) => p.pointer)).toEqual(['/providers', '/limits/apiKey'])
    expect(resolved.problems[1]?.message).toContain('an API key never goes in a project')
    expect(resolved.problems[1]?.file).toBe(join(s.root, '.dsh-acp', 'config.json'))
  })
})
