import { Logger } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { type StoreFixture, startStore } from '../../../test/support/session-store.js'
import { NO_FEATURES } from '../../acp/views/client-features.js'
import { acpV1Renderer } from '../../acp/views/v1/renderer.js'
import type { SessionUpdate } from '../../session/index.js'
import { McpNotices } from './mcp-notices.js'

/** What an ACP v1 client with or without `session.notices` is shown of a canonical update. */
function shown(update: SessionUpdate, notices: boolean) {
  return acpV1Renderer.render({ sessionId: 's', update }, { ...NO_FEATURES, notices }).map((n) => n.update)
}

let store: StoreFixture | undefined
afterEach(async () => {
  await store?.stop()
  store = undefined
})

async function notices() {
  store = await startStore()
  const session = store.sessions.create()
  const sent: [SessionUpdate, number][] = []
  const logger = new Logger('mcp-test')
  logger.level = 0
  const board = new McpNotices(session, (update, seq) => sent.push([update, seq]), logger)
  return { session, sent, board }
}

describe('McpNotices', () => {
  it('a lost server is an error notice for a client with session.notices, recorded as mcp:failed', async () => {
    const { session, sent, board } = await notices()
    board.failed('files', 'stopped working (exited)', 'lost')
    board.flush()
    expect(session.events().map((e) => e.type)).toEqual(['mcp:failed'])
    expect(sent.map(([update, seq]) => [shown(update, true)[0], seq])).toEqual([
      [
        {
          sessionUpdate: 'notice',
          severity: 'error',
          title: 'MCP server "files" stopped working',
          description: 'It stopped working (exited). Its tools are not available.',
        },
        1,
      ],
    ])
  })

  it('is the agent message it always was for any other client; a turn channel gets its own', async () => {
    const { sent, board } = await notices()
    board.failed('files', 'could not start: boom')
    board.flush()
    board.starting('files')
    const turn: [SessionUpdate, number][] = []
    board.flush((update, seq) => turn.push([update, seq]))
    expect(sent.flatMap(([update]) => shown(update, false))).toEqual([
      {
        sessionUpdate: 'agent_message_chunk',
        content: {
          type: 'text',
          text: 'MCP server "files" could not start: boom. Its tools are not available.\n',
        },
      },
    ])
    expect(turn.flatMap(([update]) => shown(update, true))).toMatchObject([
      { sessionUpdate: 'notice', severity: 'info' },
    ])
  })
})
