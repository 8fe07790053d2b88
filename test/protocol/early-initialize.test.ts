import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { capabilitiesAtStart } from '../../src/acp/capabilities.js'
import { promptCapabilitiesOf } from '../../src/agent/config/prompt-capabilities.js'
import { createProvider, type ProviderOptions } from '../../src/agent/providers/index.js'
import { type App, createApp } from '../../src/app.js'
import { earlyInitialize } from '../../src/process/early-start/early-initialize.js'

const agentInfo = { name: 'dsh-acp', title: 'dsh-acp', version: '9.9.9' }
const dir = mkdtempSync(join(tmpdir(), 'dsh-early-init-'))
const script = join(dir, 'script.json')
writeFileSync(script, JSON.stringify({ turns: [[[{ text: 'hi' }]]] }))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let app: App | undefined
afterEach(async () => {
  await app?.ctx.stop()
  app = undefined
})

interface Config {
  readonly model: string
  readonly modelOptions?: ProviderOptions
  readonly fork: boolean
  readonly store: boolean
}

/** The built server's answer to `line`, as written on its output. */
async function builtAnswer(config: Config, line: string): Promise<string> {
  app = await createApp({
    storeDir: config.store ? mkdtempSync(join(dir, 'store-')) : null,
    model: config.model,
    ...(config.modelOptions && { modelOptions: config.modelOptions }),
    fork: config.fork,
    agentInfo,
  })
  const input = new PassThrough()
  const output = new PassThrough()
  app.ctx.acp.serve(input, output)
  let text = ''
  const answered = new Promise<string>((resolve) => {
    output.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8')
      if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')))
    })
  })
  input.write(`${line}\n`)
  return answered
}

function earlyAnswer(config: Config, line: string): string | undefined {
  const provider = createProvider(config.model, config.modelOptions ?? {})
  const capabilities = capabilitiesAtStart({
    fork: config.fork,
    promptCapabilities: promptCapabilitiesOf(provider),
  })
  return earlyInitialize(Buffer.from(line), { capabilities, agentInfo })?.response
}

const openai = { baseUrl: 'http://127.0.0.1:9/v1', modelName: 'm1' }
const configs: Config[] = [
  { model: 'echo', fork: true, store: false },
  { model: 'echo', fork: false, store: true },
  { model: `script:${script}`, fork: true, store: true },
  { model: 'openai', modelOptions: openai, fork: true, store: false },
  { model: 'openai', modelOptions: { ...openai, imageInput: true }, fork: false, store: false },
]
const lines = [
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}',
  '{"id":"init-1","method":"initialize","jsonrpc":"2.0","params":{"protocolVersion":7,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"ed","version":"1"},"_meta":{"x":1}}}',
  '{"jsonrpc":"2.0","id":12,"method":"initialize","params":{"protocolVersion":1}}',
]

describe('initialize answered before the server is built', () => {
  for (const config of configs) {
    it(`says byte for byte what the built server says: ${config.model}, fork ${config.fork}, store ${config.store}`, async () => {
      for (const line of lines) {
        const early = earlyAnswer(config, line)
        expect(early).toBeDefined()
        expect(early).toBe(await builtAnswer(config, line))
        await app?.ctx.stop()
        app = undefined
      }
    })
  }

  it('leaves every other first line to the connection', () => {
    const config = configs[0] as Config
    const declined = [
      '',
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\r',
      '{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":1}}',
      '{"jsonrpc":"2.0","id":0,"method":"session/list","params":{}}',
      '{"jsonrpc":"2.0","id":0,"method":"initialize"}',
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1"}}',
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":70000}}',
      '{"jsonrpc":"2.0","id":0.5,"method":"initialize","params":{"protocolVersion":1}}',
      '{"jsonrpc":"1.0","id":0,"method":"initialize","params":{"protocolVersion":1}}',
      '[{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}]',
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}',
      'not json',
    ]
    for (const line of declined) expect(earlyAnswer(config, line), line).toBeUndefined()
    const capabilities = capabilitiesAtStart({
      fork: true,
      promptCapabilities: promptCapabilitiesOf(createProvider()),
    })
    const notUtf8 = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ])
    expect(earlyInitialize(notUtf8, { capabilities, agentInfo })).toBeUndefined()
  })

  it('records the client as the initialize method does', () => {
    const capabilities = capabilitiesAtStart({
      fork: true,
      promptCapabilities: promptCapabilitiesOf(createProvider()),
    })
    // A v1 client (a version above 1 now negotiates v2, whose clients have no fs or terminal).
    const v1Line = (lines[1] as string).replace('"protocolVersion":7', '"protocolVersion":1')
    const answer = earlyInitialize(Buffer.from(v1Line), { capabilities, agentInfo })
    expect(answer?.client).toEqual({
      protocolVersion: 1,
      capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      info: { name: 'ed', version: '1' },
    })
  })
})
