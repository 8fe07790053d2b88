// Hostile-input fuzzing against the built binary: a seeded generator writes frames (deep nesting,
// prototype keys, invalid UTF-8, huge and odd ids, responses and cancels with hostile ids, garbage,
// and ordinary requests between them) to one `dsh-acp` process over stdio. It checks that the
// process never exits early, that every well-formed request is answered exactly once, that stdout
// holds only JSON lines, and, after EOF, that a fresh process loads every stored session.
// `node scripts/fuzz.mjs [frames] [seed]` (npm run fuzz); needs `npm run build` first.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js')
const frames = Number(process.argv[2] ?? 3000)
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000)
if (!Number.isSafeInteger(frames) || frames < 1 || !Number.isSafeInteger(seed)) {
  console.error('usage: node scripts/fuzz.mjs [frames] [seed]')
  process.exit(2)
}

/** mulberry32: a small seeded PRNG, so a failing run can be replayed with its seed. */
function prng(state) {
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = prng(seed)
const int = (n) => Math.floor(random() * n)
const pick = (items) => items[int(items.length)]
const chance = (p) => random() < p

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty']
const deepText = (depth, open = '[', close = ']', leaf = '1') =>
  open.repeat(depth) + leaf + close.repeat(depth)
const deepObjectText = (depth, key = 'a') => `${`{"${key}":`.repeat(depth)}1${'}'.repeat(depth)}`

/** Random JSON text: sometimes deep, sometimes with prototype keys, sometimes large. */
function jsonText(budget = 4) {
  const r = random()
  if (r < 0.08) return deepText(pick([100, 255, 257, 1000, 5000, 20000]))
  if (r < 0.16) return deepObjectText(pick([100, 254, 300, 3000, 5000]), pick(['a', ...PROTO_KEYS]))
  if (r < 0.3 || budget <= 0)
    return pick([
      '1',
      '-0',
      '1e308',
      '1e400',
      'null',
      'true',
      '"x"',
      '"\\u0000"',
      '"\\ud800"',
      '0.5',
      '123456789012345678901234567890',
    ])
  if (r < 0.55) {
    const n = int(4)
    return `[${Array.from({ length: n }, () => jsonText(budget - 1)).join(',')}]`
  }
  const n = int(4)
  const fields = Array.from(
    { length: n },
    () => `${JSON.stringify(chance(0.4) ? pick(PROTO_KEYS) : `k${int(5)}`)}:${jsonText(budget - 1)}`,
  )
  return `{${fields.join(',')}}`
}

function hostileId() {
  return pick([
    deepText(5000),
    deepObjectText(5000),
    '1.5',
    'null',
    'true',
    '{}',
    '[]',
    '1e400',
    '-1',
    '9007199254740993',
    JSON.stringify('x'.repeat(200_000)),
    '"__proto__"',
    '"constructor"',
    String(int(1000)),
  ])
}

const sessions = []
/** Tracked request ids start far from the small ids hostile frames use. */
let nextId = 1_000_000
/** id (JSON text) -> method, for well-formed requests still to be answered. */
const expected = new Map()

function request(method, paramsText) {
  const id = chance(0.3)
    ? JSON.stringify(`r${nextId++}${chance(0.1) ? 'y'.repeat(int(50_000)) : ''}`)
    : String(nextId++)
  expected.set(id, method)
  return `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}${paramsText === undefined ? '' : `,"params":${paramsText}`}}`
}

const cwd = mkdtempSync(join(tmpdir(), 'dsh-fuzz-cwd-'))
const aFile = join(cwd, 'a-file')
writeFileSync(aFile, '')

function session() {
  return sessions.length > 0 ? pick(sessions) : 'ses_missing'
}

function promptBlock() {
  const meta = chance(0.5) ? `,"_meta":${jsonText()}` : ''
  const type = chance(0.9) ? '"text"' : JSON.stringify(pick([...PROTO_KEYS, 'image', 'resource', 'nope']))
  return `{"type":${type},"text":${JSON.stringify(chance(0.02) ? 'z'.repeat(int(30_000)) : `hello ${int(100)}`)}${meta}}`
}

/** One frame: a line (string), raw bytes (Buffer), or several lines written at once. */
function frame() {
  const r = random()
  if (r < 0.14) {
    const blocks = Array.from({ length: 1 + int(3) }, promptBlock).join(',')
    return request('session/prompt', `{"sessionId":${JSON.stringify(session())},"prompt":[${blocks}]}`)
  }
  if (r < 0.2)
    return request('session/list', chance(0.8) ? '{}' : `{"cursor":${jsonText(1)},"cwd":${jsonText(1)}}`)
  if (r < 0.25)
    return request(
      pick(['session/load', 'session/resume']),
      `{"sessionId":${JSON.stringify(session())},"cwd":${JSON.stringify(cwd)},"mcpServers":[]}`,
    )
  if (r < 0.27) return request('session/close', `{"sessionId":${JSON.stringify(session())}}`)
  if (r < 0.33) {
    const boundary = pick([jsonText(), '0', '1', '-1', '3', '1e400', deepText(3500), '"2"'])
    return request(
      'session/fork',
      `{"sessionId":${JSON.stringify(session())},"cwd":${JSON.stringify(cwd)},"mcpServers":[],"_meta":{"dsh":{"boundary":${boundary}}}}`,
    )
  }
  if (r < 0.38) {
    const where = pick([
      JSON.stringify(cwd),
      JSON.stringify(cwd),
      JSON.stringify(aFile),
      '"/tmp/a\\u0000b"',
      '"relative"',
      jsonText(1),
    ])
    return request('session/new', `{"cwd":${where},"mcpServers":[]}`)
  }
  if (r < 0.39 && sessions.length > 3) {
    const victim = sessions.splice(int(sessions.length), 1)[0]
    return request('session/delete', `{"sessionId":${JSON.stringify(victim)}}`)
  }
  if (r < 0.47) {
    const recent = String(nextId - 1 - int(5))
    const id = chance(0.5) ? recent : hostileId()
    return chance(0.5)
      ? `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":${id}}}`
      : `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":${id}}}`
  }
  if (r < 0.53) {
    return chance(0.5)
      ? `{"jsonrpc":"2.0","id":${hostileId()},"result":${jsonText()}}`
      : `{"jsonrpc":"2.0","id":${hostileId()},"error":${jsonText()}}`
  }
  if (r < 0.6)
    return request(
      pick(['nope', 'constructor', '__proto__', 'toString', 'session/prompt/x', '$/ping']),
      chance(0.5) ? '{}' : jsonText(2),
    )
  if (r < 0.68) {
    return pick([
      `{"jsonrpc":"2.0","id":${hostileId()},"method":"session/list","params":{}}`,
      `{"jsonrpc":"1.0","id":1,"method":"session/list"}`,
      `{"jsonrpc":"2.0","id":1,"method":${jsonText(1)}}`,
      `{"jsonrpc":"2.0","id":"p","method":"session/list","params":"str"}`,
      `{"__proto__":{"jsonrpc":"2.0","id":1,"method":"session/list"}}`,
      `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":${JSON.stringify(session())}}}`,
      `{"jsonrpc":"2.0","method":"session/cancel","params":${jsonText()}}`,
    ])
  }
  if (r < 0.74) return Buffer.from([0x7b, 0xff, 0xfe, 0x22, 0xc0, 0xaf, 0x7d, 0x0a])
  if (r < 0.82)
    return pick([
      '',
      '   ',
      '{',
      '{"jsonrpc":"2.0"',
      'null',
      '[]',
      '[1,2]',
      '"str"',
      '42',
      deepText(10000),
      jsonText(),
      '[{"jsonrpc":"2.0","id":"in-batch","method":"session/list"}]',
    ])
  if (r < 0.9) return request('session/list', `{"_meta":${jsonText()}}`)
  return request(
    'session/prompt',
    `{"sessionId":${JSON.stringify(session())},"prompt":[{"type":"text","text":"x","_meta":${deepObjectText(pick([200, 300, 3000, 5000]), pick(PROTO_KEYS))}}]}`,
  )
}

function startAgent(store) {
  const child = spawn(
    process.execPath,
    [CLI, '--store', store, '--transcript', join(store, '..', `fuzz-transcript-${process.pid}.jsonl`)],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  const agent = { child, lines: [], stderr: '', exited: undefined, rest: Buffer.alloc(0) }
  agent.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
  child.stderr.on('data', (chunk) => {
    if (agent.stderr.length < 1 << 20) agent.stderr += chunk
  })
  child.stdout.on('data', (chunk) => {
    let data = Buffer.concat([agent.rest, chunk])
    for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10)) {
      agent.lines.push(data.subarray(0, nl).toString('utf8'))
      data = data.subarray(nl + 1)
    }
    agent.rest = data
  })
  child.stdin.on('error', () => {})
  return agent
}

function send(agent, text) {
  return new Promise((resolve) => {
    if (agent.child.exitCode !== null) return resolve()
    agent.child.stdin.write(typeof text === 'string' ? `${text}\n` : text, () => resolve())
  })
}

async function answer(agent, id) {
  for (let i = 0; i < 2000; i++) {
    for (const line of agent.lines) {
      const message = JSON.parse(line)
      if (message.id === id) return message
    }
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`no answer to ${id}`)
}

const problems = []
const base = mkdtempSync(join(tmpdir(), 'dsh-fuzz-'))
const store = join(base, 'store')
const agent = startAgent(store)
await send(agent, '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1}}')
await answer(agent, 'init')
for (let i = 0; i < 3; i++) {
  await send(
    agent,
    `{"jsonrpc":"2.0","id":"new${i}","method":"session/new","params":{"cwd":${JSON.stringify(cwd)},"mcpServers":[]}}`,
  )
  const created = await answer(agent, `new${i}`)
  sessions.push(created.result.sessionId)
}

for (let i = 0; i < frames; i++) {
  const chunk = frame()
  if (typeof chunk === 'string' && chance(0.05) && chunk.length > 2) {
    const cut = 1 + int(chunk.length - 1)
    await send(agent, Buffer.from(chunk.slice(0, cut)))
    await send(agent, `${chunk.slice(cut)}`)
  } else {
    await send(agent, chunk)
  }
  if (agent.child.exitCode !== null) {
    problems.push(`the agent exited (${agent.child.exitCode}) after frame ${i}`)
    break
  }
  if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 1))
}
agent.child.stdin.end()
const timeout = setTimeout(() => agent.child.kill('SIGKILL'), 120_000)
const code = await agent.exited
clearTimeout(timeout)
if (code !== 0) problems.push(`exit ${code}; stderr tail: ${agent.stderr.slice(-2000)}`)
for (const line of agent.stderr
  .split('\n')
  .filter((l) => l.includes('internal error'))
  .slice(0, 5)) {
  problems.push(`agent log: ${line.slice(0, 500)}`)
}
if (agent.rest.length > 0) problems.push('stdout ended inside a line')

const answers = new Map()
for (const line of agent.lines) {
  let message
  try {
    message = JSON.parse(line)
  } catch {
    problems.push(`stdout line is not JSON: ${line.slice(0, 200)}`)
    continue
  }
  if (message.method !== undefined) {
    if (message.id !== undefined && message.method !== 'session/request_permission') {
      problems.push(`unexpected request from the agent: ${line.slice(0, 200)}`)
    }
    continue
  }
  const key = JSON.stringify(message.id)
  answers.set(key, (answers.get(key) ?? 0) + 1)
  if (message.error?.code === -32603) {
    problems.push(`internal error for ${expected.get(key) ?? 'an untracked request'}: ${line.slice(0, 300)}`)
  }
}
let answeredOnce = 0
for (const [id, method] of expected) {
  const count = answers.get(JSON.stringify(JSON.parse(id))) ?? 0
  if (count === 1) answeredOnce++
  else problems.push(`${method} ${id.slice(0, 60)} answered ${count} times`)
}

// Every session on disk loads in a fresh process.
const checker = startAgent(store)
await send(checker, '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1}}')
await answer(checker, 'init')
const stored = []
let cursor
do {
  await send(
    checker,
    `{"jsonrpc":"2.0","id":"list${stored.length}","method":"session/list","params":${cursor ? JSON.stringify({ cursor }) : '{}'}}`,
  )
  const page = await answer(checker, `list${stored.length}`)
  if (page.error) {
    problems.push(`session/list failed: ${JSON.stringify(page.error)}`)
    break
  }
  for (const s of page.result.sessions) stored.push(s)
  cursor = page.result.nextCursor
} while (cursor)
let loadable = 0
for (const s of stored) {
  await send(
    checker,
    `{"jsonrpc":"2.0","id":"load-${s.sessionId}","method":"session/load","params":{"sessionId":"${s.sessionId}","cwd":${JSON.stringify(s.cwd)},"mcpServers":[]}}`,
  )
  const loaded = await answer(checker, `load-${s.sessionId}`)
  if (loaded.error)
    problems.push(`session ${s.sessionId} does not load: ${JSON.stringify(loaded.error).slice(0, 300)}`)
  else loadable++
}
checker.child.stdin.end()
const checkerCode = await checker.exited
if (checkerCode !== 0) problems.push(`checker exit ${checkerCode}`)

rmSync(base, { recursive: true, force: true })
rmSync(cwd, { recursive: true, force: true })
console.log(
  `fuzz: ${frames} frames (seed ${seed}), ${answeredOnce} of ${expected.size} requests answered exactly once, ${loadable} of ${stored.length} sessions loadable, exit ${code}`,
)
if (problems.length > 0) {
  console.error(`fuzz found ${problems.length} problems (seed ${seed}):\n${problems.slice(0, 30).join('\n')}`)
  process.exit(1)
}
