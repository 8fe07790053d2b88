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

import { fuzzFrames } from './fuzz-frames.mjs'

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.cjs')
const frames = Number(process.argv[2] ?? 3000)
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000)
if (!Number.isSafeInteger(frames) || frames < 1 || !Number.isSafeInteger(seed)) {
  console.error('usage: node scripts/fuzz.mjs [frames] [seed]')
  process.exit(2)
}

const cwd = mkdtempSync(join(tmpdir(), 'dsh-fuzz-cwd-'))
const aFile = join(cwd, 'a-file')
writeFileSync(aFile, '')

const { frame, chance, int, sessions, expected } = fuzzFrames(seed, cwd, aFile)

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
