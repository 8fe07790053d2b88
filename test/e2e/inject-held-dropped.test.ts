import { copyFileSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { completionStream } from '../support/fake-openai.js'
import { openAiAgents } from '../support/openai-agent.js'
import { messagesOf } from '../support/openai-wire.js'

/**
 * A message `_session/inject` holds for a session's next prompt belongs to that live session: once
 * the session is deleted, closed by its last client or archived, it is dropped, so the session
 * opened again (or its file restored) never gets it.
 */

const start = openAiAgents()
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })

describe('_session/inject: a held message goes with its session', () => {
  it('is dropped by session/close, session/archive and session/delete; the next prompt carries only its own words', async () => {
    const run = await start({
      script: ['after close', 'after archive', 'after restore'].map((t) => ({
        stream: completionStream({ text: t }),
      })),
    })
    const backup = mkdtempSync(join(run.scratch, 'backup-'))
    const request = (method: string, sessionId: string) =>
      run.agent.agent.request(method as 'session/close', { sessionId })
    const letGo: [string, (sessionId: string) => Promise<unknown>][] = [
      ['close', (id) => request('session/close', id)],
      [
        'archive',
        async (id) => {
          await request('session/archive', id)
          await request('session/unarchive', id)
        },
      ],
      [
        'delete',
        async (id) => {
          const file = `${id}.jsonl`
          copyFileSync(join(run.storeDir, file), join(backup, file))
          await request('session/delete', id)
          // The user restores the session from a backup.
          copyFileSync(join(backup, file), join(run.storeDir, file))
        },
      ],
    ]
    for (const [index, [how, release]] of letGo.entries()) {
      const sessionId = await run.newSession()
      const held = await run.agent.agent.request('_session/inject', {
        sessionId,
        message: [text(`held before ${how}`)],
      })
      expect(held).toEqual({ success: true, outcome: 'held' })
      await release(sessionId)
      await run.replay(sessionId)
      expect((await run.prompt(sessionId, `hello after ${how}`)).stopReason).toBe('end_turn')
      const sent = JSON.stringify(messagesOf(run.fake.requests[index]))
      expect(sent).toContain(`hello after ${how}`)
      expect(sent).not.toContain('held before')
      const userMessages = run.loggedEvents(sessionId).filter((e) => e.type === 'user/message')
      expect(userMessages.map((e) => e.data.content)).toEqual([[text(`hello after ${how}`)]])
    }
    expect(await run.agent.stop()).toBe(0)
    expect(run.agent.audit.problems).toEqual([])
  })
})
