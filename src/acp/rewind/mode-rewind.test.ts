import { describe, expect, it } from 'vitest'
import { appendTurn, startStore } from '../../../test/support/session-store.js'
import type { FileRestoreReport, FileRestoreRequest } from '../../agent/checkpoints/restore-contract.js'
import type { CallContext } from '../call-context.js'
import { modeRewind } from './mode-rewind.js'

const clean: FileRestoreReport = {
  restored: ['/w/a.ts'],
  removed: ['/w/new.ts'],
  conflicts: [],
  commandsRan: false,
  insertions: 3,
  deletions: 1,
}

/** A call on an in-memory store whose agent restores files as `restore` says, recording each request. */
async function setup(restore: (request: FileRestoreRequest) => FileRestoreReport) {
  const store = await startStore()
  const session = store.sessions.create('s')
  for (const text of ['one', 'two', 'three']) appendTurn(session, text)
  const requests: { dryRun: boolean; boundary: number; lengthThen: number }[] = []
  const call = {
    sessions: store.sessions,
    agent: {
      isRunning: () => false,
      cancel: async () => {},
      restoreFiles: async (request: FileRestoreRequest) => {
        requests.push({
          dryRun: request.dryRun,
          boundary: request.boundary,
          lengthThen: store.sessions.require('s').length,
        })
        return restore(request)
      },
    },
    afterResponse: () => {},
    notify: async () => {},
    clientBridge: () => ({}),
  } as unknown as CallContext
  return { store, call, requests }
}

describe('_session/rewind with modes', () => {
  it('both: previews, restores the files (to the end of the turn kept last), then rewinds the conversation', async () => {
    const { store, call, requests } = await setup(() => clean)
    const result = await modeRewind({ sessionId: 's', messageId: 'msg_8', mode: 'both' }, call)
    expect(requests).toEqual([
      { dryRun: true, boundary: 6, lengthThen: 18 },
      { dryRun: false, boundary: 6, lengthThen: 18 },
    ])
    expect(result.files).toMatchObject({ canRewind: true, filesChanged: ['/w/a.ts', '/w/new.ts'] })
    expect(result.conversation).toMatchObject({ rewound: true, messagesDropped: 4 })
    // The 6 events kept, then the rewind's marker.
    expect(store.sessions.require('s').length).toBe(7)
    expect(store.sessions.require('s').at(7)?.type).toBe('rewind:marker')
    await store.stop()
  })

  it('both: a conflict in the preview refuses the file half before anything is written, and skips the conversation', async () => {
    const conflict = { ...clean, conflicts: [{ path: '/w/a.ts', reason: 'changed since' }] }
    const { store, call, requests } = await setup(() => conflict)
    const result = await modeRewind({ sessionId: 's', messageId: 'msg_8', mode: 'both' }, call)
    expect(requests.map((r) => r.dryRun)).toEqual([true])
    expect(result.files).toMatchObject({ canRewind: false, conflicts: conflict.conflicts })
    expect(result.conversation).toMatchObject({ rewound: false, messagesDropped: 4 })
    expect(store.sessions.require('s').length).toBe(18)
    await store.stop()
  })

  it('a dry run changes nothing and says that commands ran', async () => {
    const { store, call, requests } = await setup(() => ({ ...clean, commandsRan: true }))
    const result = await modeRewind({ sessionId: 's', messageId: 'msg_8', mode: 'both', dryRun: true }, call)
    expect(requests.map((r) => r.dryRun)).toEqual([true])
    expect(result.files).toMatchObject({
      commandsRan: true,
      warning: expect.stringMatching(/not restored/),
      insertions: 3,
      deletions: 1,
    })
    expect(result.conversation).toEqual({ rewound: false, messagesDropped: 4 })
    expect(store.sessions.require('s').length).toBe(18)
    await store.stop()
  })

  it('files (the default) answers only the file half; a restore that throws is a refusal', async () => {
    const { store, call } = await setup(() => {
      throw new Error('no checkpoints')
    })
    expect(await modeRewind({ sessionId: 's', messageId: 'msg_8' }, call)).toEqual({
      files: { canRewind: false, filesChanged: [], reason: 'no checkpoints' },
    })
    await store.stop()
  })

  it('both: a conversation rewind into the fork seed refuses both halves before any file is looked at', async () => {
    const { store, call, requests } = await setup(() => clean)
    store.sessions.fork('s', 12, 'c')
    const result = await modeRewind({ sessionId: 'c', messageId: 'msg_8', mode: 'both' }, call)
    const reason =
      'this session was forked from s with its first 12 events: the conversation cannot be rewound before them, so neither half is done'
    expect(result).toEqual({
      files: { canRewind: false, filesChanged: [], reason },
      conversation: { rewound: false, messagesDropped: 2, reason },
    })
    expect(requests).toEqual([])
    const alone = await modeRewind({ sessionId: 'c', messageId: 'msg_8', mode: 'conversation' }, call)
    expect(alone.conversation?.reason).toMatch(/^session c was forked from s with its first 12 events/)
    await store.stop()
  })
})
