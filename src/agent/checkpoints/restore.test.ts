import { existsSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  edit,
  turnOf,
  turns,
  useCheckpointWorkspace,
  write,
} from '../../../test/support/checkpoint-workspace.js'
import { request } from '../../../test/support/turn-harness.js'
import type { ClientBridge } from '../types.js'
import { blobNameOf } from './blob-port.js'
import { CHECKPOINT_FILE_EVENT, checkpointOf, INLINE_BEFORE_BYTES } from './checkpoint-event.js'

const ws = useCheckpointWorkspace()
const { at, text, agentWith } = ws

const BIG = `${'x'.repeat(INLINE_BEFORE_BYTES)}\nthe original big file\n`

describe('restoring files to a boundary', () => {
  it('restores every file to its content at a boundary and removes the files created after it', async () => {
    await writeFile(at('big.txt'), BIG)
    const context = await agentWith([
      turnOf(write('a.txt', 'one\n'), edit('big.txt', 'original', 'first')),
      turnOf(
        edit('a.txt', 'one', 'two'),
        write('c/new.txt', 'created\n'),
        edit('big.txt', 'first', 'second'),
      ),
    ])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    const [end1] = await turns(context, session, 2)

    const toTurn1 = await context.agent.restoreFiles({ session, boundary: end1 as number, dryRun: false })
    expect(toTurn1).toEqual({
      restored: [at('a.txt'), at('big.txt')],
      removed: [at('c/new.txt')],
      conflicts: [],
      commandsRan: false,
      insertions: 3,
      deletions: 2,
    })
    expect(await text('a.txt')).toBe('one\n')
    expect(await text('big.txt')).toBe(BIG.replace('original', 'first'))
    expect(existsSync(at('c/new.txt'))).toBe(false)
  })

  it('restores to before the first turn: created files removed, changed ones back to the original', async () => {
    await writeFile(at('big.txt'), BIG)
    const context = await agentWith([
      turnOf(write('a.txt', 'one\n'), edit('big.txt', 'original', 'first')),
      turnOf(edit('a.txt', 'one', 'two'), edit('big.txt', 'first', 'second')),
    ])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    await turns(context, session, 2)
    const report = await context.agent.restoreFiles({ session, boundary: 0, dryRun: false })
    expect(report).toEqual({
      restored: [at('big.txt')],
      removed: [at('a.txt')],
      conflicts: [],
      commandsRan: false,
      insertions: 2,
      deletions: 1,
    })
    expect(await text('big.txt')).toBe(BIG)
    expect(existsSync(at('a.txt'))).toBe(false)
  })

  it('a dry run reports what a restore would do and changes nothing', async () => {
    const context = await agentWith([turnOf(write('a.txt', 'one\n')), turnOf(edit('a.txt', 'one', 'two'))])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    const [end1] = await turns(context, session, 2)
    await writeFile(at('b.txt'), 'untouched\n')
    const dry = await context.agent.restoreFiles({ session, boundary: 0, dryRun: true })
    expect(dry).toEqual({
      restored: [],
      removed: [at('a.txt')],
      conflicts: [],
      commandsRan: false,
      insertions: 1,
      deletions: 0,
    })
    expect(await text('a.txt')).toBe('two\n')
    const dryToTurn1 = await context.agent.restoreFiles({ session, boundary: end1 as number, dryRun: true })
    expect(dryToTurn1.restored).toEqual([at('a.txt')])
    expect(await text('a.txt')).toBe('two\n')
    expect(await context.agent.restoreFiles({ session, boundary: end1 as number, dryRun: false })).toEqual(
      dryToTurn1,
    )
    expect(await text('a.txt')).toBe('one\n')
  })

  it('a file changed since by someone else is reported and left, unless forced', async () => {
    const context = await agentWith([
      turnOf(write('a.txt', 'one\n'), write('b.txt', 'bee\n')),
      turnOf(edit('a.txt', 'one', 'two'), edit('b.txt', 'bee', 'bees')),
    ])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    const [end1] = await turns(context, session, 2)
    await writeFile(at('a.txt'), 'the user changed it\n')

    const refused = await context.agent.restoreFiles({ session, boundary: end1 as number, dryRun: false })
    expect(refused.restored).toEqual([at('b.txt')])
    expect(refused.conflicts).toEqual([
      {
        path: at('a.txt'),
        reason:
          'changed since the session last wrote it (by someone else); not overwritten (force to overwrite it)',
      },
    ])
    expect(await text('a.txt')).toBe('the user changed it\n')
    expect(await text('b.txt')).toBe('bee\n')

    const forced = await context.agent.restoreFiles({
      session,
      boundary: end1 as number,
      dryRun: false,
      force: true,
    })
    expect(forced).toMatchObject({ restored: [at('a.txt')], conflicts: [] })
    expect(await text('a.txt')).toBe('one\n')
  })

  it('a file deleted or changed since is neither recreated nor removed unless forced', async () => {
    await writeFile(at('old.txt'), 'old\n')
    const context = await agentWith([
      turnOf(write('a.txt', 'one\n'), write('b.txt', 'bee\n'), write('old.txt', 'new\n')),
    ])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    await turns(context, session, 1)
    await rm(at('a.txt'))
    await writeFile(at('b.txt'), 'mine now\n')
    await rm(at('old.txt'))
    const refused = await context.agent.restoreFiles({ session, boundary: 0, dryRun: false })
    // a.txt did not exist at the boundary and does not now: nothing to do.
    expect(refused).toEqual({
      restored: [],
      removed: [],
      conflicts: [
        {
          path: at('b.txt'),
          reason:
            'changed since the session last wrote it (by someone else); not overwritten (force to overwrite it)',
        },
        {
          path: at('old.txt'),
          reason: 'deleted since the session last wrote it; not recreated (force to recreate it)',
        },
      ],
      commandsRan: false,
      insertions: 0,
      deletions: 0,
    })
    expect(await text('b.txt')).toBe('mine now\n')
    const forced = await context.agent.restoreFiles({ session, boundary: 0, dryRun: false, force: true })
    expect(forced).toEqual({
      restored: [at('old.txt')],
      removed: [at('b.txt')],
      conflicts: [],
      commandsRan: false,
      insertions: 1,
      deletions: 1,
    })
    expect(existsSync(at('b.txt'))).toBe(false)
    expect(await text('old.txt')).toBe('old\n')
  })

  it('records its own changes, so restores can follow one another without the conversation rewound', async () => {
    await writeFile(at('big.txt'), BIG)
    const context = await agentWith([
      turnOf(write('a.txt', 'one\n'), edit('big.txt', 'original', 'first')),
      turnOf(edit('a.txt', 'one', 'two'), edit('big.txt', 'first', 'second')),
      turnOf(edit('a.txt', 'one', 'three')),
    ])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    const [end1] = await turns(context, session, 2)
    const toTurn1 = await context.agent.restoreFiles({ session, boundary: end1 as number, dryRun: false })
    expect(toTurn1.restored).toEqual([at('a.txt'), at('big.txt')])
    const records = session.events().flatMap((e) => {
      const change = checkpointOf(e)
      return change?.callId === 'restore' ? [change] : []
    })
    expect(records.map((change) => [change.path, change.turn])).toEqual([
      [at('a.txt'), 2],
      [at('big.txt'), 2],
    ])
    // Again to the same boundary: already there.
    expect(await context.agent.restoreFiles({ session, boundary: end1 as number, dryRun: true })).toEqual({
      restored: [],
      removed: [],
      conflicts: [],
      commandsRan: false,
      insertions: 0,
      deletions: 0,
    })
    // The conversation goes on from the restored files; then everything goes back to the start.
    await context.agent.runTurn(session, request('three'))
    expect(await text('a.txt')).toBe('three\n')
    const toStart = await context.agent.restoreFiles({ session, boundary: 0, dryRun: false })
    expect(toStart).toEqual({
      restored: [at('big.txt')],
      removed: [at('a.txt')],
      conflicts: [],
      commandsRan: false,
      insertions: 2,
      deletions: 1,
    })
    expect(await text('big.txt')).toBe(BIG)
  })

  it('two restores of one session run one after the other: the second finds the work done', async () => {
    const context = await agentWith([turnOf(write('a.txt', 'one\n')), turnOf(edit('a.txt', 'one', 'two'))])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    const [end1] = await turns(context, session, 2)
    const restore = () => context.agent.restoreFiles({ session, boundary: end1 as number, dryRun: false })
    const [first, second] = await Promise.all([restore(), restore()])
    expect(first.restored).toEqual([at('a.txt')])
    expect(second).toEqual({
      restored: [],
      removed: [],
      conflicts: [],
      commandsRan: false,
      insertions: 0,
      deletions: 0,
    })
  })

  it('says when run_command or an MCP tool ran after the boundary', async () => {
    const context = await agentWith([
      turnOf({ name: 'run_command', input: { command: 'true' }, result: 'ok' }, write('a.txt', '1')),
      turnOf(write('a.txt', '2')),
      turnOf({ name: 'mcp__srv__tool', input: {}, result: 'ok' }),
    ])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    const [end1, end2] = await turns(context, session, 3)
    const restore = (boundary: number) => context.agent.restoreFiles({ session, boundary, dryRun: true })
    expect((await restore(0)).commandsRan).toBe(true)
    expect((await restore(end1 as number)).commandsRan).toBe(true)
    expect(await restore(end2 as number)).toEqual({
      restored: [],
      removed: [],
      conflicts: [],
      commandsRan: true,
      insertions: 0,
      deletions: 0,
    })
    expect((await restore(session.lastSeq)).commandsRan).toBe(false)
  })

  it('refuses a boundary inside a turn or past the log, as fork does', async () => {
    const context = await agentWith([turnOf(write('a.txt', '1'))])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    await turns(context, session, 1)
    await expect(context.agent.restoreFiles({ session, boundary: 2, dryRun: true })).rejects.toMatchObject({
      code: 'OPEN_TURN',
    })
    await expect(
      context.agent.restoreFiles({ session, boundary: session.lastSeq + 1, dryRun: true }),
    ).rejects.toMatchObject({ code: 'INVALID_BOUNDARY' })
  })

  it('a path now outside the workspace is reported, not written', async () => {
    const context = await agentWith([])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    const outside = path.join(ws.base, 'outside.txt')
    await writeFile(outside, 'x')
    session.append({
      type: CHECKPOINT_FILE_EVENT,
      data: { turn: 1, callId: 'c', path: outside, before: 'absent', after: blobNameOf(Buffer.from('x')) },
    })
    const report = await context.agent.restoreFiles({ session, boundary: 0, dryRun: false })
    expect(report.conflicts).toEqual([
      {
        path: outside,
        reason: `not restored: outside the workspace this session was opened in (${ws.cwd}); a restore acts only there`,
      },
    ])
    expect(await readFile(outside, 'utf8')).toBe('x')
  })

  it('through the editor: the tools and the restore read and write with fs/*', async () => {
    const buffers = new Map<string, string>([[at('a.txt'), 'unsaved buffer\n']])
    const writes: string[] = []
    const editor: ClientBridge = {
      readTextFile: async (file) => {
        const content = buffers.get(file)
        if (content === undefined) throw new Error('no such file')
        return content
      },
      writeTextFile: async (file, content) => {
        writes.push(file)
        buffers.set(file, content)
        await writeFile(file, content)
      },
    }
    await writeFile(at('a.txt'), 'on disk\n')
    const context = await agentWith([turnOf(edit('a.txt', 'unsaved', 'edited'))])
    const session = context.sessions.create(undefined, { meta: { cwd: ws.cwd } })
    await turns(context, session, 1, editor)
    const report = await context.agent.restoreFiles({ session, boundary: 0, dryRun: false })
    expect(report).toEqual({
      restored: [at('a.txt')],
      removed: [],
      conflicts: [],
      commandsRan: false,
      insertions: 1,
      deletions: 1,
    })
    expect(writes).toEqual([at('a.txt'), at('a.txt')])
    expect(buffers.get(at('a.txt'))).toBe('unsaved buffer\n')
  })
})
