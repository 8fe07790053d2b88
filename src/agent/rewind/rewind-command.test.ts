import { describe, expect, it } from 'vitest'
import { appendTurn, startStore } from '../../../test/support/session-store.js'
import { rewindCommand } from './rewind-command.js'

describe('/rewind', () => {
  it('refuses to undo a prompt of the inherited fork seed, and says where to fork instead', async () => {
    const store = await startStore()
    const parent = store.sessions.create('s')
    for (const text of ['one', 'two']) appendTurn(parent, text)
    const child = store.sessions.fork(parent, 12, 'c')
    appendTurn(child, 'three')
    const run = (args: string) =>
      rewindCommand().run({ session: child, sessions: store.sessions, args, turnStart: child.lastSeq + 1 })
    expect(await run('2')).toBe(
      'Cannot rewind before the first 12 events: this session was forked from s with them. Fork s there instead.',
    )
    expect(child.length).toBe(18)
    expect(await run('1')).toMatch(
      /^Rewound the last prompt: the conversation goes on from before "three" \(seq 12\)/,
    )
    await store.stop()
  })
})
