import type { SessionPage, SessionSummary } from '../../session/index.js'
import { ProtocolError } from '../errors.js'
import { defineMethod } from '../method.js'
import { assertAbsolutePath } from '../params.js'
import { SerializedJson } from '../wire/index.js'

/**
 * The answers to pages the store gave out frozen (it gives the same page object again while
 * nothing listed changed): made and serialized once per page.
 */
const answers = new WeakMap<SessionPage, SerializedJson<ReturnType<typeof toResult>>>()

function toResult(page: SessionPage) {
  return {
    sessions: page.sessions.map(toSessionInfo),
    ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
  }
}

function toSessionInfo(summary: SessionSummary) {
  return {
    sessionId: summary.sessionId,
    cwd: summary.cwd,
    ...(summary.title !== undefined && { title: summary.title }),
    updatedAt: summary.updatedAt,
    _meta: {
      dsh: {
        createdAt: summary.createdAt,
        ...(summary.parentSession !== undefined && { parentSession: summary.parentSession }),
        ...(summary.seedLength !== undefined && { seedLength: summary.seedLength }),
        ...(summary.subagent !== undefined && { subagent: summary.subagent }),
      },
    },
  }
}

/** `session/list`: most recent activity first, optionally in one `cwd`, paged by an opaque cursor, with lineage. */
export const sessionListMethod = defineMethod({
  name: 'session/list',
  advertise(capabilities) {
    capabilities.sessionCapabilities.list = {}
  },
  async handle(params, call) {
    const cwd = params.cwd ?? undefined
    const cursor = params.cursor ?? undefined
    if (cwd !== undefined) assertAbsolutePath('session/list', 'cwd', cwd)
    let page: Awaited<ReturnType<typeof call.sessions.list>>
    try {
      page = await call.sessions.list({
        ...(cwd !== undefined && { cwd }),
        ...(cursor !== undefined && { cursor }),
      })
    } catch (error) {
      if (error instanceof TypeError)
        throw ProtocolError.invalidParams(`session/list: ${error.message}`, { field: 'cursor' })
      throw error
    }
    if (!Object.isFrozen(page)) return toResult(page)
    let answer = answers.get(page)
    if (!answer) {
      answer = SerializedJson.of(toResult(page))
      answers.set(page, answer)
    }
    return answer
  },
})
