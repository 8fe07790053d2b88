import { existsSync, readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  edit,
  turnOf,
  turns,
  useCheckpointWorkspace,
  write,
} from '../../../test/support/checkpoint-workspace.js'
import { BlobDirectory } from '../../persistence/index.js'
import { blobNameOf, type CheckpointBlobs } from './blob-port.js'
import { CHECKPOINT_FILE_EVENT, INLINE_BEFORE_BYTES } from './checkpoint-event.js'

const ws = useCheckpointWorkspace()
const { at, text, blobFiles, agentWith } = ws

const BIG = `${'x'.repeat(INLINE_BEFORE_BYTES)}\nthe original big file\n`

describe('recording file changes', () => {
  it('records each change: before inline when small, in a blob when large; after as a hash', async () => {
    await writeFile(at('big.txt'), BIG)
    const context = await agentWith([
      turnOf(write('new.txt', 'hello\n'), edit('big.txt', 'original', 'changed')),
    ])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    await turns(context, session, 1)
    const checkpoints = session.events().filter((e) => e.type === CHECKPOINT_FILE_EVENT)
    expect(checkpoints.map((e) => e.data)).toEqual([
      {
        turn: 1,
        callId: 'call_1_1_1',
        path: at('new.txt'),
        before: 'absent',
        after: blobNameOf(Buffer.from('hello\n')),
      },
      {
        turn: 1,
        callId: 'call_1_1_2',
        path: at('big.txt'),
        before: blobNameOf(Buffer.from(BIG)),
        after: blobNameOf(Buffer.from(BIG.replace('original', 'changed'))),
      },
    ])
    expect(blobFiles()).toEqual([blobNameOf(Buffer.from(BIG)).slice('sha256:'.length)])
    const small = await agentWithSecondSession('small.txt', 'tiny\n')
    expect(small).toMatchObject({ before: blobNameOf(Buffer.from('tiny\n')), beforeText: 'tiny\n' })
  })

  async function agentWithSecondSession(name: string, before: string) {
    await writeFile(at(name), before)
    const context = await agentWith([turnOf(write(name, 'replaced\n'))])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    await turns(context, session, 1)
    return session.events().find((e) => e.type === CHECKPOINT_FILE_EVENT)?.data
  }

  it('keeps the same content once, however many files and changes hold it', async () => {
    await writeFile(at('one.txt'), BIG)
    await writeFile(at('two.txt'), BIG)
    const context = await agentWith([
      turnOf(write('one.txt', 'a'), write('two.txt', 'b')),
      turnOf(write('one.txt', BIG), write('one.txt', 'c')),
    ])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    await turns(context, session, 2)
    expect(session.events().filter((e) => e.type === CHECKPOINT_FILE_EVENT)).toHaveLength(4)
    expect(blobFiles()).toHaveLength(1)
  })
})

describe('crash safety: the content is durable before the event that names it', () => {
  it('the blob is in place before the file changes, and before the event naming it is appended', async () => {
    await writeFile(at('big.txt'), BIG)
    const hex = blobNameOf(Buffer.from(BIG)).slice('sha256:'.length)
    const order: string[] = []
    const disk = new BlobDirectory(ws.blobDir)
    const watched: CheckpointBlobs = {
      put: async (bytes) => {
        const name = await disk.put(bytes)
        const unchanged = readFileSync(at('big.txt'), 'utf8') === BIG
        order.push(`blob kept: ${existsSync(path.join(ws.blobDir, hex))}, file unchanged: ${unchanged}`)
        return name
      },
      get: (name) => disk.get(name),
    }
    const context = await agentWith([turnOf(edit('big.txt', 'original', 'changed'))], watched)
    context.sessions.onAppended((_session, event) => {
      if (event.type === CHECKPOINT_FILE_EVENT)
        order.push(`event, blob there: ${existsSync(path.join(ws.blobDir, hex))}`)
    })
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    await turns(context, session, 1)
    expect(order).toEqual(['blob kept: true, file unchanged: true', 'event, blob there: true'])
    expect(await disk.get(`sha256:${hex}`)).toEqual(Buffer.from(BIG))
  })

  it('when the content cannot be kept, the file is not written and no event is appended', async () => {
    await writeFile(at('big.txt'), BIG)
    const failing: CheckpointBlobs = {
      put: async () => {
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
      },
      get: async () => undefined,
    }
    const context = await agentWith([turnOf(edit('big.txt', 'original', 'changed'))], failing)
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    await turns(context, session, 1)
    expect(await text('big.txt')).toBe(BIG)
    expect(session.events().filter((e) => e.type === CHECKPOINT_FILE_EVENT)).toEqual([])
    const result = session.events().find((e) => e.type === 'tool/result')
    expect(result?.data).toMatchObject({ isError: true, output: expect.stringContaining('ENOSPC') })
  })

  it('a blob whose bytes were damaged is refused on read, and the restore reports the file', async () => {
    await writeFile(at('big.txt'), BIG)
    const context = await agentWith([turnOf(edit('big.txt', 'original', 'changed'))])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    await turns(context, session, 1)
    const [hex] = blobFiles()
    await writeFile(path.join(ws.blobDir, hex as string), 'damaged')
    const report = await context.agent.restoreFiles({ session, boundary: 0, dryRun: false })
    expect(report.conflicts).toEqual([
      { path: at('big.txt'), reason: `its content at the boundary (sha256:${hex}) is no longer stored` },
    ])
    expect(await text('big.txt')).toBe(BIG.replace('original', 'changed'))
  })
})
