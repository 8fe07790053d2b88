import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { capabilitiesAtStart } from '../../src/acp/capabilities.js'
import type { ClientState } from '../../src/acp/client-state.js'
import type { EarlyReplay } from '../../src/acp/views/replay/shown-head.js'
import { promptCapabilitiesOf } from '../../src/agent/config/prompt-capabilities.js'
import { createProvider } from '../../src/agent/providers/index.js'
import { type App, createApp } from '../../src/app.js'
import { earlyInitialize } from '../../src/process/early-start/early-initialize.js'
import { earlyLoad } from '../../src/process/early-start/early-load.js'
import type { AnyEventInput } from '../../src/session/index.js'
import type { Session } from '../../src/session/session.js'

const agentInfo = { name: 'dsh-acp', title: 'dsh-acp', version: '9.9.9' }
const root = mkdtempSync(join(tmpdir(), 'dsh-early-load-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const CWD = root
const ID = 'early_one'
const TIME = '2026-01-01T00:00:00.000Z'

type Event = readonly [type: string, data: unknown]

function turn(n: number, ending = 'completed', tool = false): Event[] {
  return [
    ['turn/start', { turn: n }],
    ['user/message', { turn: n, content: [{ type: 'text', text: `question ${n}` }] }],
    ['step/start', { turn: n, step: 1 }],
    ['assistant/message', { turn: n, step: 1, content: `answer ${n}` }],
    ...(tool
      ? ([
          ['tool/call', { turn: n, step: 1, callId: `c${n}`, name: 'read', input: { path: 'a.txt' } }],
          ['tool/result', { turn: n, step: 1, callId: `c${n}`, output: 'text' }],
        ] as Event[])
      : []),
    ['step/end', { turn: n, step: 1 }],
    ['turn/end', { turn: n, reason: ending }],
  ]
}

/** A store directory holding session {@link ID} with `events`, in a directory of its own. */
function storeWith(events: readonly Event[], header: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(root, 'store-'))
  const lines = [JSON.stringify({ version: 1, id: ID, createdAt: TIME, cwd: CWD, ...header })]
  for (const [i, [type, data]] of events.entries())
    lines.push(JSON.stringify({ seq: i + 1, type, time: TIME, data }))
  writeFileSync(join(dir, `${ID}.jsonl`), `${lines.join('\n')}\n`, { mode: 0o600 })
  return dir
}

const SESSION: Event[] = [
  ...turn(1),
  ['config/set', { option: 'mode', value: 'read-only' }],
  ...turn(2, 'completed', true),
  ...turn(3, 'cancelled'),
]

function clientOf(protocolVersion: number, clientCapabilities: Record<string, unknown> = {}): ClientState {
  const capabilities = capabilitiesAtStart({
    fork: true,
    promptCapabilities: promptCapabilitiesOf(createProvider()),
  })
  const line = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, clientCapabilities },
  })
  const answer = earlyInitialize(Buffer.from(line), { capabilities, agentInfo })
  if (!answer) throw new Error('no early initialize')
  return answer.client
}

const v1Load = (params: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 'load-1',
    method: 'session/load',
    params: { sessionId: ID, cwd: CWD, mcpServers: [], ...params },
  })
const v2Resume = JSON.stringify({
  jsonrpc: '2.0',
  id: 'load-1',
  method: 'session/resume',
  params: { sessionId: ID, cwd: CWD, mcpServers: [], replayFrom: { type: 'start' } },
})

/** Appends `events` to a live session, in order. */
function appendAll(session: Session, events: readonly Event[]): void {
  for (const [type, data] of events) session.append({ type, data } as AnyEventInput)
}

const apps: App[] = []
afterEach(async () => {
  for (const app of apps.splice(0)) await app.ctx.stop()
})

/** Every line the built server writes for `line` through its answer (id `load-1`). */
async function served(store: string, client: ClientState, line: string, earlyReplay?: EarlyReplay) {
  const app = await createApp({ storeDir: store, model: 'echo', fork: true, agentInfo })
  apps.push(app)
  const input = new PassThrough()
  const output = new PassThrough()
  app.ctx.acp.serve(input, output, { client, ...(earlyReplay && { earlyReplay }) })
  const lines: string[] = []
  let rest = ''
  const answered = new Promise<void>((resolve) => {
    output.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString('utf8')).split('\n')
      rest = parts.pop() ?? ''
      for (const part of parts) {
        lines.push(part)
        if ((JSON.parse(part) as { id?: unknown }).id === 'load-1') resolve()
      }
    })
  })
  input.write(`${line}\n`)
  await answered
  return lines
}

/** The early load of `line` on a copy of `store`, then the server's load on it: all lines written. */
async function early(store: string, client: ClientState, line: string) {
  const written: string[] = []
  const replay = await earlyLoad(Buffer.from(line), {
    client,
    store,
    write: (text) => written.push(...text.split('\n').filter((l) => l !== '')),
  })
  return { written, replay }
}

const copyOf = (store: string) => {
  const dir = mkdtempSync(join(root, 'copy-'))
  cpSync(store, dir, { recursive: true })
  return dir
}

describe('the first updates of a session/load sent before the server is built', () => {
  it.each([
    ['an ACP v1 client', clientOf(1), v1Load()],
    ['an ACP v1 client that shows notices and goals', clientOf(1, { session: { notices: {} } }), v1Load()],
    ['an ACP v1 client that shows subagents', clientOf(1, { subagents: {} }), v1Load()],
    ['an ACP v2 client (session/resume from the start)', clientOf(2), v2Resume],
  ])(
    'make, with what the server sends after them, the very lines of a load served whole: %s',
    async (_who, client, line) => {
      const store = storeWith(SESSION)
      const whole = await served(copyOf(store), client, line)
      const { written, replay } = await early(store, client, line)
      expect(written.length).toBeGreaterThan(0)
      // The user's message is sent once the assistant's shows the turn goes on; the rest is the server's.
      expect(replay).toMatchObject({ requestId: 'load-1', sessionId: ID, head: { sentThrough: 2 } })
      const rest = await served(store, client, line, replay)
      expect([...written, ...rest]).toEqual(whole)
      expect(written).toEqual(whole.slice(0, written.length))
    },
  )

  it('sends nothing of a session that starts with a config/set (its updates need the agent)', async () => {
    const store = storeWith([['config/set', { option: 'mode', value: 'read-only' }], ...turn(1)])
    const { written, replay } = await early(store, clientOf(1), v1Load())
    expect(written).toEqual([])
    expect(replay).toBeUndefined()
  })

  it.each([
    ['another directory', clientOf(1), v1Load({ cwd: tmpdir() })],
    ['a load after a seq the client has seen', clientOf(1), v1Load({ _meta: { dsh: { afterSeq: 2 } } })],
    ['a session that does not exist', clientOf(1), v1Load({ sessionId: 'nobody_here' })],
    ['params the schema refuses', clientOf(1), v1Load({ mcpServers: 'none' })],
    ['a bad additional directory', clientOf(1), v1Load({ additionalDirectories: ['/nonexistent/x'] })],
    ['v1 session/load from a v2 client', clientOf(2), v1Load()],
    [
      'v2 session/resume without replayFrom',
      clientOf(2),
      v2Resume.replace(',"replayFrom":{"type":"start"}', ''),
    ],
    ['a notification', clientOf(1), v1Load().replace('"id":"load-1",', '')],
    ['another method', clientOf(1), v1Load().replace('session/load', 'session/list')],
  ])('sends nothing for %s: the connection answers it as always', async (_what, client, line) => {
    const { written, replay } = await early(storeWith(SESSION), client, line)
    expect(written).toEqual([])
    expect(replay).toBeUndefined()
  })

  it.each([
    [
      'rewritten with another first turn',
      [
        ...turn(1).map(
          ([t, d]): Event => [
            t,
            t === 'user/message' ? { turn: 1, content: [{ type: 'text', text: 'other' }] } : d,
          ],
        ),
        ...turn(2),
      ],
    ],
    ['cut before the head ended', turn(1).slice(0, 1)],
  ])(
    'fails the load with -32015 when the file was %s in between, sending nothing more',
    async (_how, events) => {
      const store = storeWith(SESSION)
      const client = clientOf(1)
      const { replay } = await early(store, client, v1Load())
      expect(replay).toBeDefined()
      const changed = storeWith(events)
      cpSync(join(changed, `${ID}.jsonl`), join(store, `${ID}.jsonl`))
      const rest = await served(store, client, v1Load(), replay)
      expect(rest).toHaveLength(1)
      expect(JSON.parse(rest[0] as string)).toMatchObject({ id: 'load-1', error: { code: -32015 } })
    },
  )

  it('goes on as the load would past a delegation in the first turn (the child shown to a client that shows subagents)', async () => {
    const store = mkdtempSync(join(root, 'store-'))
    const writer = await createApp({ storeDir: store, model: 'echo', fork: true, agentInfo })
    const parent = await writer.ctx.sessions.createDurable(ID, { meta: { cwd: CWD } })
    appendAll(parent, [
      ...turn(1).slice(0, 3),
      ['tool/call', { turn: 1, step: 1, callId: 'call_d', name: 'delegate', input: { task: 'do it' } }],
    ])
    const child = writer.ctx.sessions.forkSubagent(parent, { turn: 1, callId: 'call_d' }, { title: 'Kid' })
    appendAll(child, turn(1))
    appendAll(parent, [
      ['subagent:spawned', { turn: 1, callId: 'call_d', sessionId: child.id, title: 'Kid', task: 'do it' }],
      ['tool/result', { turn: 1, step: 1, callId: 'call_d', output: 'done' }],
      ['step/end', { turn: 1, step: 1 }],
      ['turn/end', { turn: 1, reason: 'completed' }],
      ...turn(2),
    ])
    await writer.ctx.sessions.closeAll()
    await writer.ctx.stop()
    for (const [client, line] of [
      [clientOf(2), v2Resume],
      [clientOf(1, { subagents: {} }), v1Load()],
    ] as const) {
      const whole = await served(copyOf(store), client, line)
      expect(whole.join('\n')).toContain('"sessionUpdate":"subagent_update"')
      const { written, replay } = await early(copyOf(store), client, line)
      expect(replay?.head.sentThrough).toBe(2)
      const copy = copyOf(store)
      const rest = await served(copy, client, line, replay)
      expect([...written, ...rest]).toEqual(whole)
    }
  })

  it('hands the head to the request that asked for it only', async () => {
    const store = storeWith(SESSION)
    const client = clientOf(1)
    const whole = await served(copyOf(store), client, v1Load())
    const { replay } = await early(store, client, v1Load())
    if (!replay) throw new Error('no early load')
    // Another request id: the server replays everything itself.
    const other = await served(store, client, v1Load(), { ...replay, requestId: 'someone-else' })
    expect(other).toEqual(whole)
  })
})
