import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI } from '../support/agent-process.js'
import { ConfigHome } from '../support/config-home.js'
import { type FakeOpenAi, startFakeOpenAi } from '../support/fake-openai.js'

const KEY = 'sk-setup-SECRET-41d2e8'
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0

let home: ConfigHome | undefined
let fake: FakeOpenAi | undefined
afterEach(async () => {
  await fake?.close()
  home?.cleanup()
  home = fake = undefined
})

/** A model server that wants `KEY`, lists two models and answers the one-token check. */
function keyedServer(): Promise<FakeOpenAi> {
  return startFakeOpenAi((request) => {
    if (request.headers.authorization !== `Bearer ${KEY}`) {
      return { status: 401, body: { error: { message: 'Incorrect API key provided' } } }
    }
    if (request.method === 'GET')
      return { status: 200, body: { data: [{ id: 'fake-model' }, { id: 'fake-large' }] } }
    return { status: 200, body: { choices: [{ message: { content: 'OK' } }] } }
  })
}

describe('dsh-acp setup from flags', () => {
  it('checks the server with one small request, then writes the configuration and the key (mode 0600)', async () => {
    home = new ConfigHome()
    fake = await keyedServer()
    const args = ['setup', '--provider', 'fake', '--base-url', fake.url, '--models', 'fake-model,fake-large']
    const run = await home.run([...args, '--key-stdin'], `${KEY}\n`)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('The server answered.')
    expect(fake.requests).toHaveLength(1)
    expect(fake.requests[0]?.body).toMatchObject({ model: 'fake-model', max_tokens: 1 })
    expect(JSON.parse(readFileSync(home.configFile, 'utf8'))).toEqual({
      $schema: 'https://dsh-acp.dev/schemas/config-file.schema.json',
      providers: { fake: { baseUrl: fake.url, models: [{ name: 'fake-model' }, { name: 'fake-large' }] } },
      defaultModel: 'fake/fake-model',
    })
    expect(home.credentialsMode()).toBe(0o600)
    expect(JSON.parse(readFileSync(home.credentialsFile, 'utf8'))).toEqual({ keys: { fake: KEY } })

    // `dsh-acp config` shows where each value came from, the key masked.
    const shown = await home.run(['config'])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(/^model\s+fake\/fake-model\s+user file$/m)
    // A value wider than its column wraps under itself (the source stays on its first line).
    expect(shown.stdout.replace(/\s+/g, ' ')).toMatch(
      /fake\/fake-large .*key \*{8} from (user file )?the (user file )?credentials (user file )?file/,
    )
    expect(shown.stdout).toMatch(/^limits\.maxSteps\s+32\s+default$/m)
    const flagged = await home.run(['config', '--max-steps', '7'])
    expect(flagged.stdout).toMatch(/^limits\.maxSteps\s+7\s+flag --max-steps$/m)
    expect(`${run.stdout}${shown.stdout}${shown.stderr}`).not.toContain(KEY)
  })

  it('says what failed and writes nothing: a refused key, a server that is not there, a missing key', async () => {
    home = new ConfigHome()
    fake = await keyedServer()
    const refused = await home.run(
      ['setup', '--provider', 'fake', '--base-url', fake.url, '--models', 'm', '--key-stdin'],
      'sk-wrong-key',
    )
    expect(refused.code).toBe(1)
    expect(refused.stdout).toContain(
      `${fake.url}/chat/completions answered 401: the key was refused (Incorrect API key provided)`,
    )
    expect(refused.stderr).toContain('nothing was written')
    const url = fake.url
    await fake.close()
    fake = undefined
    const absent = await home.run(['setup', '--provider', 'ollama', '--base-url', url, '--models', 'm'])
    expect(absent.code).toBe(1)
    expect(absent.stdout).toContain('nothing answers there (connection refused): is the server running?')
    const keyless = await home.run(['setup', '--provider', 'deepseek'])
    expect(keyless.code).toBe(2)
    expect(keyless.stderr).toContain('--provider deepseek needs a key: --key-stdin, --key-env NAME')
    expect(existsSync(home.configFile)).toBe(false)
    expect(existsSync(home.credentialsFile)).toBe(false)
  })

  it('keeps the providers already configured and refuses to touch a file that is not valid', async () => {
    home = new ConfigHome()
    home.writeConfig({
      limits: { maxSteps: 9 },
      providers: { other: { baseUrl: 'http://127.0.0.1:1/v1', models: [{ name: 'x' }] } },
    })
    const local = await home.run(['setup', '--provider', 'llamacpp', '--no-key', '--no-check'])
    expect(local.code).toBe(0)
    const written = JSON.parse(readFileSync(home.configFile, 'utf8'))
    expect(written.limits).toEqual({ maxSteps: 9 })
    expect(Object.keys(written.providers)).toEqual(['other', 'llamacpp'])
    expect(written.providers.llamacpp).toMatchObject({
      baseUrl: 'http://127.0.0.1:8080/v1',
      keyRequired: false,
    })
    expect(written.defaultModel).toBe('llamacpp/default')
    home.writeConfig('{"providers": ')
    const broken = await home.run(['setup', '--provider', 'llamacpp', '--no-key', '--no-check'])
    expect(broken.code).toBe(1)
    expect(broken.stderr).toContain(`${home.configFile}: is not valid JSON`)
    expect(readFileSync(home.configFile, 'utf8')).toBe('{"providers": ')
  })
})

/**
 * `dsh-acp setup` on a pseudo-terminal (util-linux `script`), answering each question when it is
 * asked, as a person does: what the terminal shows is what the person sees.
 */
class Terminal {
  private text = ''
  private seen = 0
  private readonly waiters = new Set<() => void>()
  readonly exited: Promise<number | null>
  private readonly child

  constructor(env: Record<string, string>) {
    this.child = spawn('script', ['-qefc', `${process.execPath} ${CLI} setup`, '/dev/null'], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.text += chunk.toString('utf8')
      for (const wake of this.waiters) wake()
    })
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)))
  }

  get screen(): string {
    return this.text
  }

  /** Waits until the terminal shows `prompt` (after what was answered so far), then types `keys`. */
  async answer(prompt: string, keys: string): Promise<void> {
    await new Promise<void>((resolve) => {
      const check = () => {
        const at = this.text.indexOf(prompt, this.seen)
        if (at < 0) return
        this.seen = at + prompt.length
        this.waiters.delete(check)
        resolve()
      }
      this.waiters.add(check)
      check()
    })
    this.child.stdin.write(keys)
  }

  close(): void {
    this.child.stdin.end()
  }
}

describe('dsh-acp setup on a terminal', () => {
  it.skipIf(!hasScript)(
    'asks for the provider, the key without showing it, and the models the server lists',
    async () => {
      home = new ConfigHome()
      fake = await keyedServer()
      const terminal = new Terminal(home.env())
      await terminal.answer('Provider [1]: ', '7\r')
      await terminal.answer('A short id for it (lowercase) [custom]: ', 'fake\r')
      await terminal.answer('Its API root (e.g. https://example.com/v1): ', `${fake.url}\r`)
      await terminal.answer('Does it need an API key? (y/n) [y]: ', '\r')
      await terminal.answer('API key (not shown): ', `${KEY}\r`)
      await terminal.answer(
        'Models to offer, comma-separated (the first is the default) [fake-model]: ',
        'fake-large,fake-model\r',
      )
      const code = await terminal.exited
      terminal.close()
      expect(terminal.screen).toContain('The server lists: fake-model, fake-large')
      expect(terminal.screen).toContain('The server answered.')
      expect(code).toBe(0)
      expect(terminal.screen).not.toContain(KEY)
      expect(JSON.parse(readFileSync(home.configFile, 'utf8')).defaultModel).toBe('fake/fake-large')
      expect(home.credentialsMode()).toBe(0o600)
      expect(JSON.parse(readFileSync(home.credentialsFile, 'utf8'))).toEqual({ keys: { fake: KEY } })
    },
  )

  it.skipIf(!hasScript)('stops at Ctrl-C, writing nothing', async () => {
    home = new ConfigHome()
    // DeepSeek, with no key in the environment to offer instead of asking.
    const terminal = new Terminal(home.env({ DEEPSEEK_API_KEY: '' }))
    await terminal.answer('Provider [1]: ', '1\r')
    await terminal.answer('API key (not shown): ', 'sk-half\u0003')
    const code = await terminal.exited
    terminal.close()
    expect(code).toBe(130)
    expect(terminal.screen).toContain('cancelled; nothing was written')
    expect(terminal.screen).not.toContain('sk-half')
    expect(existsSync(home.configFile)).toBe(false)
    expect(existsSync(home.credentialsFile)).toBe(false)
  })
})
