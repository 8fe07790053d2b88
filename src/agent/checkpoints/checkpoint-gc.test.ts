import { createHash } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
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
    expect(readdirSync(dir.dir)).toEqual([])
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
    expect(readdirSync(dir.dir)).toEqual([first.slice('sha256:'.length)])
    expect(existsSync(path.join(dir.dir, first.slice('sha256:'.length)))).toBe(true)
  })
})

function blobHex(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
