import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request } from '../../../test/support/turn-harness.js'
import { BlobDirectory, type JsonlPersistence, persistencePlugin } from '../../persistence/index.js'
import { sessionsPlugin } from '../../session/index.js'
import { createScriptProvider } from '../providers/script.js'
import { parseModelScript } from '../providers/script-format.js'
import { agentPlugin } from '../service.js'
import { INLINE_BEFORE_BYTES } from './checkpoint-event.js'

let base: string
let cwd: string
let store: string
let ctx: Context | undefined

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'dsh-ckpt-gc-')))
  cwd = path.join(base, 'project')
  store = path.join(base, 'store')
  await mkdir(cwd)
})

afterEach(async () => {
  await ctx?.sessions.closeAll().catch(() => {})
  await ctx?.stop()
  ctx = undefined
  await rm(base, { recursive: true, force: true })
})

const BIG = (tag: string) => `${tag}\n${'x'.repeat(INLINE_BEFORE_BYTES)}\n`

async function start(turns: number): Promise<{ context: Context; persistence: JsonlPersistence }> {
  const context = new Context()
  ctx = context
  context.plugin(sessionsPlugin)
  context.plugin(persistencePlugin, { dir: store, blobGraceMs: 0 })
  const script = Array.from({ length: turns }, (_, i) => [
    [{ toolCall: { name: 'write_text_file', input: { path: `f${i}.txt`, content: 'new' } } }],
    [{ text: 'done' }],
  ])
  context.plugin(agentPlugin, {
    provider: createScriptProvider(parseModelScript(script)),
    modeOf: () => 'accept-edits',
    checkpointBlobs: new BlobDirectory(path.join(store, 'blobs')),
  })
  await context.start()
  return { context, persistence: context.get('persistence') as JsonlPersistence }
}

const blobs = () =>
  readdirSync(path.join(store, 'blobs'))
    .filter((name) => !name.startsWith('.'))
    .sort()

describe('checkpoint blobs are collected when no session names them', () => {
  it('a fork keeps its parent’s blobs alive; deleting the last session naming a blob removes it', async () => {
    await writeFile(path.join(cwd, 'f0.txt'), BIG('zero'))
    await writeFile(path.join(cwd, 'f1.txt'), BIG('one'))
    const { context: ctx, persistence } = await start(2)
    const parent = await ctx.sessions.createDurable(undefined, { meta: { cwd } })
    const end1 = (await ctx.agent.runTurn(parent, request('one'))).seq
    await ctx.agent.runTurn(parent, request('two'))
    expect(blobs()).toHaveLength(2)
    const [zero, one] = [BIG('zero'), BIG('one')].map((text) => blobHex(text))

    const child = await ctx.sessions.forkDurable(parent, end1)
    const parentId = parent.id
    const childId = child.id
    await ctx.sessions.close(parentId)
    await ctx.sessions.close(childId)
    await ctx.sessions.delete(parentId)
    // The delete started a collection: f1's old content was named only by the parent's second
    // turn; f0's is in the fork's prefix too.
    await persistence.blobCollector.idle()
    expect(blobs()).toEqual([zero])
    expect(one).not.toBe(zero)

    await ctx.sessions.delete(childId)
    await persistence.blobCollector.idle()
    expect(blobs()).toEqual([])
  })

  it('a young blob is spared (its event may be on its way), and so is one any session still names', async () => {
    const dir = new BlobDirectory(path.join(base, 'blobs'))
    const named = await dir.put(Buffer.from('named'))
    const orphan = await dir.put(Buffer.from('orphan'))
    const log = path.join(base, 'session.jsonl')
    await writeFile(log, `{"data":{"before":"${named}"}}\n`)
    expect(await dir.collect(async () => [log], 60_000)).toMatchObject({ removed: 0, kept: 2 })
    expect(await dir.collect(async () => [log], 0)).toMatchObject({ removed: 1, kept: 1 })
    expect(await dir.get(named)).toEqual(Buffer.from('named'))
    expect(await dir.get(orphan)).toBeUndefined()
  })

  it('a name split across the scan’s read chunks is still found', async () => {
    const dir = new BlobDirectory(path.join(base, 'blobs'))
    const named = await dir.put(Buffer.from('named'))
    const log = path.join(base, 'session.jsonl')
    await writeFile(log, `${' '.repeat((1 << 20) - 10)}${named}\n`)
    expect(await dir.collect(async () => [log], 0)).toMatchObject({ removed: 0, kept: 1 })
  })

  it('a temp file a live process is writing is spared while young; one a killed process left goes at once', async () => {
    const dir = new BlobDirectory(path.join(base, 'blobs'))
    await dir.put(Buffer.from('x'))
    const temp = (pid: number) => path.join(dir.dir, `.${'a'.repeat(64)}.${pid}.${'b'.repeat(12)}.tmp`)
    await writeFile(temp(process.pid), 'a blob being written')
    // No pid reaches 999999999 (Linux caps pids at 2^22): its writer is gone.
    await writeFile(temp(999_999_999), 'half a blob')
    await dir.collect(async () => [], 60_000)
    expect(existsSync(temp(process.pid))).toBe(true)
    expect(existsSync(temp(999_999_999))).toBe(false)
    await dir.collect(async () => [], 0)
    expect(readdirSync(dir.dir).filter((name) => !name.startsWith('.process.'))).toEqual([])
  })

  it('put writes a damaged blob again', async () => {
    const dir = new BlobDirectory(path.join(base, 'blobs'))
    const name = await dir.put(Buffer.from('good bytes'))
    await writeFile(path.join(dir.dir, name.slice('sha256:'.length)), 'bad! bytes')
    await expect(dir.get(name)).rejects.toThrow(/does not hold the bytes it names/)
    expect(await dir.put(Buffer.from('good bytes'))).toBe(name)
    expect(await dir.get(name)).toEqual(Buffer.from('good bytes'))
  })

  it('put keeps the same bytes once, and leaves no temp file behind', async () => {
    const dir = new BlobDirectory(path.join(base, 'blobs'))
    const first = await dir.put(Buffer.from('same'))
    const second = await dir.put(Buffer.from('same'))
    expect(second).toBe(first)
    expect(readdirSync(dir.dir).filter((name) => !name.startsWith('.process.'))).toEqual([
      first.slice('sha256:'.length),
    ])
    expect(existsSync(path.join(dir.dir, first.slice('sha256:'.length)))).toBe(true)
  })
})

describe('a deleted session’s blobs go at once when no other process has the store open', () => {
  /** A store written by an earlier process: one session naming a blob made just now (young). */
  async function storeWithOneSession(): Promise<{ id: string; hex: string }> {
    const id = 'gone-soon'
    const content = Buffer.from(BIG('old content'))
    const hex = createHash('sha256').update(content).digest('hex')
    await mkdir(path.join(store, 'blobs'), { recursive: true, mode: 0o700 })
    await writeFile(path.join(store, 'blobs', hex), content, { mode: 0o600 })
    const header = { version: 1, id, createdAt: new Date().toISOString(), cwd }
    const event = {
      seq: 1,
      type: 'x/named',
      time: new Date().toISOString(),
      data: { before: `sha256:${hex}` },
    }
    await writeFile(
      path.join(store, `${id}.jsonl`),
      `${JSON.stringify(header)}\n${JSON.stringify(event)}\n`,
      {
        mode: 0o600,
      },
    )
    return { id, hex }
  }

  async function startWithGrace(): Promise<{ context: Context; persistence: JsonlPersistence }> {
    const context = new Context()
    ctx = context
    context.plugin(sessionsPlugin)
    context.plugin(persistencePlugin, { dir: store, blobGraceMs: 60 * 60 * 1000 })
    await context.start()
    return { context, persistence: context.get('persistence') as JsonlPersistence }
  }

  it('removes a young blob only the deleted session named when this process is alone', async () => {
    const { id, hex } = await storeWithOneSession()
    const { context, persistence } = await startWithGrace()
    expect(blobs()).toEqual([hex])
    await context.sessions.delete(id)
    await persistence.blobCollector.idle()
    expect(blobs()).toEqual([])
  })

  it('spares it while another live process has the store open, not when that process is gone', async () => {
    const { id, hex } = await storeWithOneSession()
    const other = spawn(process.execPath, ['-e', 'process.stdin.resume()'], {
      stdio: ['pipe', 'ignore', 'ignore'],
    })
    const pid = other.pid as number
    const start = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19] ?? '0'
    await writeFile(path.join(store, 'blobs', `.process.${pid}.${start}`), '')
    try {
      const { context, persistence } = await startWithGrace()
      await context.sessions.delete(id)
      await persistence.blobCollector.idle()
      expect(blobs()).toEqual([hex])
    } finally {
      const exited = once(other, 'exit')
      other.kill('SIGKILL')
      await exited
    }
    // The other process is gone (its marker stays, stale): the next collection removes the blob.
    const persistence = ctx?.get('persistence') as JsonlPersistence
    await persistence.blobCollector.soon()
    expect(blobs()).toEqual([])
    expect(existsSync(path.join(store, 'blobs', `.process.${pid}.${start}`))).toBe(false)
  })

  it('a process marks the blob directory before its first blob there', async () => {
    const dir = new BlobDirectory(path.join(base, 'blobs'))
    await dir.put(Buffer.from('x'))
    const marker = readdirSync(dir.dir).filter((name) => name.startsWith(`.process.${process.pid}.`))
    expect(marker).toHaveLength(1)
    // This process's own marker never makes it spare its own blobs past their put.
    expect(await dir.collect(async () => [], 0)).toMatchObject({ removed: 1 })
  })
})

function blobHex(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
