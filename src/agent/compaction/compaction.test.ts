import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import { NO_FEATURES } from '../../acp/views/client-features.js'
import { acpV1Renderer } from '../../acp/views/v1/renderer.js'
import { type CoreEvent, projectHistory, projectUpdates, type Session } from '../../session/index.js'
import { echoAnswer } from '../providers/echo.js'
import { createEchoProvider } from '../providers/index.js'
import type { ModelProvider, ModelRequest } from '../types.js'
import { compactionNotice } from './compaction-notice.js'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
})

const lastAnswer = (session: Session) =>
  session
    .events()
    .filter((e) => e.type === 'assistant/message')
    .at(-1)?.data.content

const compactions = (session: Session) =>
  session.events().filter((e): e is CoreEvent<'context/compaction'> => e.type === 'context/compaction')

/** The echo model, recording every request it gets. */
function recordingEcho(): { provider: ModelProvider; requests: ModelRequest[] } {
  const echo = createEchoProvider()
  const requests: ModelRequest[] = []
  return {
    requests,
    provider: {
      ...echo,
      stream: (req, signal) => {
        requests.push(req)
        return echo.stream(req, signal)
      },
    },
  }
}

describe('compaction', () => {
  it('/compact records a summary through the boundary before it; later requests send summary + newer turns; forks before and after', async () => {
    const { provider, requests } = recordingEcho()
    ctx = await startAgent({ provider })
    const session = ctx.sessions.create()
    const prompt = (text: string, target = session) =>
      ctx?.agent.runTurn(target, { ...request(text), commands: true })
    await prompt('first')
    await prompt('second')
    const beforeCompact = session.lastSeq
    const live = request('/compact keep the names')
    const outcome = await ctx.agent.runTurn(session, { ...live, commands: true })
    expect(outcome.stopReason).toBe('end_turn')
    const [compaction] = compactions(session)
    expect(compaction?.data).toMatchObject({
      compactionId: `compaction_${beforeCompact + 4}`,
      through: beforeCompact,
      trigger: 'command',
      instructions: 'keep the names',
      model: 'echo',
    })
    expect(compaction?.data.summary).toBe(
      'Summary of the conversation so far.\nThe user asked:\n1. "first"\n2. "second"',
    )
    // The summary request: the conversation, then the instruction with the user's own words.
    const summaryRequest = requests.find((r) => r.purpose === 'summary')
    const last = summaryRequest?.messages.at(-1)
    expect(last?.role === 'user' && last.content[0]).toMatchObject({
      text: expect.stringMatching(/keep the names$/),
    })
    // Shown to an ACP v1 client without the compaction capability: a think tool call, finished
    // with the summary.
    const tool = live.live
      .flatMap((u) => acpV1Renderer.render({ sessionId: session.id, update: u.update }, NO_FEATURES))
      .filter((n) => n.update.sessionUpdate.startsWith('tool_call'))
    expect(tool.map((n) => n.update)).toMatchObject([
      {
        sessionUpdate: 'tool_call',
        kind: 'think',
        title: 'Compacting the conversation',
        status: 'in_progress',
      },
      {
        sessionUpdate: 'tool_call_update',
        status: 'completed',
        content: [{ content: { text: compaction?.data.summary } }],
      },
    ])
    expect(lastAnswer(session)).toMatch(/^Compacted the conversation through seq \d+: about/)

    await prompt('third')
    expect(lastAnswer(session)).toBe(
      'I remember 1 message from you since the summary of 2 earlier messages:\n1. "third"',
    )
    const history = projectHistory(session.events())
    expect(history.map((m) => m.role)).toEqual(['summary', 'user', 'assistant'])

    // Nothing was deleted: every user message is still in the log.
    expect(session.events().filter((e) => e.type === 'user/message')).toHaveLength(4)
    // A fork before the compaction has no summary; one after inherits it.
    const early = ctx.sessions.fork(session, beforeCompact)
    await prompt('in the early fork', early)
    expect(lastAnswer(early)).toBe(echoAnswer(['first', 'second', 'in the early fork']))
    const late = ctx.sessions.fork(session, session.lastSeq)
    expect(projectHistory(late.events())).toEqual(history)
    // A subagent's clipped fork, taken while a later turn is open, starts from the compacted view.
    const turn = session.lastTurn + 1
    session.append({ type: 'turn/start', data: { turn } })
    session.append({ type: 'user/message', data: { turn, content: [{ type: 'text', text: 'delegate' }] } })
    const child = ctx.sessions.forkSubagent(session, { turn, callId: 'call_1' })
    expect(projectHistory(child.events())).toEqual(history)
  })

  it('the automatic trigger compacts before a request past the threshold of the window, once', async () => {
    const { provider, requests } = recordingEcho()
    ctx = await startAgent({
      provider,
      tools: [],
      subagents: false,
      compaction: { compactAt: 0.25, contextWindow: () => 2000 },
    })
    const session = ctx.sessions.create()
    const long = 'lorem ipsum dolor sit amet '.repeat(12)
    let turns = 0
    while (compactions(session).length === 0 && turns < 10) {
      await ctx.agent.runTurn(session, request(`turn ${++turns} ${long}`))
    }
    expect(turns).toBeGreaterThan(1)
    const [auto] = compactions(session)
    expect(auto?.data).toMatchObject({ trigger: 'auto' })
    expect(auto?.data.tokensBefore).toBeGreaterThan(200)
    expect(auto?.data.tokensAfter).toBeLessThan(auto?.data.tokensBefore ?? 0)
    // The request after it: summary, then the running turn's prompt.
    const after = requests.at(-1)
    expect(after?.purpose).toBeUndefined()
    expect(after?.messages.map((m) => m.role)).toEqual(['summary', 'user'])
    expect(compactionNotice(auto?.data as CoreEvent<'context/compaction'>['data'])).toMatchObject({
      severity: 'info',
      title: expect.stringMatching(/^Conversation compacted \(about [\d,]+ → [\d,]+ tokens\)$/),
    })
  })

  it('cancelling during the summary ends the turn cancelled and records no compaction; the session goes on', async () => {
    const echo = createEchoProvider()
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const provider: ModelProvider = {
      ...echo,
      async *stream(req, signal) {
        if (req.purpose === 'summary') {
          yield { type: 'text', text: 'half a summ' }
          await new Promise<void>((resolve) =>
            signal.addEventListener('abort', () => resolve(), { once: true }),
          )
          await held
          return
        }
        yield* echo.stream(req, signal)
      },
    }
    ctx = await startAgent({ provider })
    const session = ctx.sessions.create()
    await ctx.agent.runTurn(session, request('first'))
    const compacting = request('/compact')
    const turn = ctx.agent.runTurn(session, { ...compacting, commands: true })
    await compacting.waitFor((u) => u.update.sessionUpdate === 'compaction_summary_chunk')
    compacting.controller.abort()
    release()
    expect((await turn).stopReason).toBe('cancelled')
    expect(compactions(session)).toHaveLength(0)
    expect(
      compacting.live.map((u) => u.update).filter((u) => u.sessionUpdate.startsWith('compaction')),
    ).toMatchObject([
      { sessionUpdate: 'compaction_update', status: 'in_progress' },
      { sessionUpdate: 'compaction_summary_chunk', text: 'half a summ' },
      { sessionUpdate: 'compaction_update', status: 'cancelled' },
    ])
    await ctx.agent.runTurn(session, request('still here'))
    expect(lastAnswer(session)).toBe(echoAnswer(['first', 'still here']))
  })

  it('a failed summary leaves the session usable and says why', async () => {
    const echo = createEchoProvider()
    const provider: ModelProvider = {
      ...echo,
      stream: (req, signal) => {
        if (req.purpose === 'summary') throw new Error('the model is down')
        return echo.stream(req, signal)
      },
    }
    ctx = await startAgent({ provider })
    const session = ctx.sessions.create()
    await ctx.agent.runTurn(session, request('first'))
    const live = request('/compact')
    await ctx.agent.runTurn(session, { ...live, commands: true })
    expect(lastAnswer(session)).toBe('Compaction failed; the conversation is unchanged. the model is down')
    expect(live.live.map((u) => u.update).at(-2)).toMatchObject({
      sessionUpdate: 'compaction_update',
      status: 'failed',
      error: 'the model is down',
    })
    expect(compactions(session)).toHaveLength(0)
  })

  it('/compact with nothing new to summarize says so and records nothing', async () => {
    ctx = await startAgent({ provider: createEchoProvider() })
    const session = ctx.sessions.create()
    await ctx.agent.runTurn(session, { ...request('/compact'), commands: true })
    expect(lastAnswer(session)).toBe(
      'Nothing to compact: there is no conversation before this turn to compact.',
    )
    await ctx.agent.runTurn(session, request('hello'))
    await ctx.agent.runTurn(session, { ...request('/compact'), commands: true })
    await ctx.agent.runTurn(session, { ...request('/compact'), commands: true })
    expect(compactions(session)).toHaveLength(1)
    expect(lastAnswer(session)).toMatch(/^Nothing to compact/)
  })

  it('replays a compaction (rendered for ACP v1) as one completed compaction_update with the capability, else as a finished think tool call', async () => {
    ctx = await startAgent({ provider: createEchoProvider() })
    const session = ctx.sessions.create()
    await ctx.agent.runTurn(session, request('first'))
    await ctx.agent.runTurn(session, { ...request('/compact'), commands: true })
    const [event] = compactions(session)
    const pick = (compaction: boolean) =>
      projectUpdates(session.id, session.events())
        .filter((n) => n._meta?.dsh.seq === event?.seq)
        .flatMap((n) => acpV1Renderer.render(n, { ...NO_FEATURES, compaction }))
    expect(pick(true).map((n) => n.update)).toEqual([
      {
        sessionUpdate: 'compaction_update',
        compactionId: event?.data.compactionId,
        status: 'completed',
        summary: [{ type: 'text', text: event?.data.summary }],
      },
    ])
    expect(pick(false).map((n) => n.update)).toMatchObject([
      {
        sessionUpdate: 'tool_call',
        kind: 'think',
        status: 'completed',
        title: expect.stringMatching(/^Compacted/),
      },
    ])
  })
})
