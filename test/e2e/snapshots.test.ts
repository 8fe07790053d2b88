import { describe, expect, it } from 'vitest'
import { validateAcpMessage } from '../support/acp-schema.js'
import type { AgentProcess } from '../support/agent-process.js'
import { answerText, newSession, prompt } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario } from '../support/snapshot-scenario.js'
import { publishedSchemaErrors } from '../support/snapshot-schemas.js'
import { dshMetaSites, readSnapshotStores, readSnapshotTranscripts } from '../support/snapshot-wire.js'

/** Writes one raw line and resolves the one message the agent answers it with. */
async function sendRaw(agent: AgentProcess, line: string): Promise<Record<string, unknown>> {
  const before = agent.audit.outgoing().length
  agent.writeRaw(`${line}\n`)
  while (agent.audit.outgoing().length === before) {
    if (agent.child.exitCode !== null) throw new Error(`the agent exited: ${agent.stderr}`)
    await new Promise((done) => setTimeout(done, 5))
  }
  const answers = agent.audit.outgoing().slice(before)
  expect(answers).toHaveLength(1)
  return answers[0] as Record<string, unknown>
}

describe('initialize and malformed input (transcript snapshots)', () => {
  it('initialize-fork-enabled: the default server advertises fork and every lifecycle method', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      const init = await agent.initialize()
      expect(init.agentCapabilities?.loadSession).toBe(true)
      expect(init.agentCapabilities?.sessionCapabilities).toEqual({
        additionalDirectories: {},
        list: {},
        resume: {},
        close: {},
        delete: {},
        fork: {},
        archive: {},
        status: {},
        title: {},
        workspaceTrust: {},
        options: {},
        systemPrompt: { mode: { override: {} } },
      })
    })
    await expectScenarioSnapshot('initialize-fork-enabled', output)
  })

  it('malformed-input: unparsable line, invalid envelope, batch and unknown method each get one error', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      await agent.initialize()
      expect(await sendRaw(agent, '{"jsonrpc":"2.0","id":"raw-1","method":')).toMatchObject({
        id: null,
        error: { code: -32700 },
      })
      expect(
        await sendRaw(agent, '{"jsonrpc":"1.0","id":"raw-2","method":"session/list","params":{}}'),
      ).toMatchObject({ id: 'raw-2', error: { code: -32600 } })
      expect(
        await sendRaw(agent, '[{"jsonrpc":"2.0","id":"raw-3","method":"session/list","params":{}}]'),
      ).toMatchObject({ id: null, error: { code: -32600 } })
      expect(
        await sendRaw(agent, '{"jsonrpc":"2.0","id":"raw-4","method":"session/rewind","params":{}}'),
      ).toMatchObject({ id: 'raw-4', error: { code: -32601 } })
      const { sessions } = await agent.agent.request('session/list', {})
      expect(sessions).toEqual([])
    })
    await expectScenarioSnapshot('malformed-input', output)
  })

  it('script-tool-turn: a scripted turn with a thought, a tool call answered by the script and usage', async () => {
    const turn = [
      [
        { thought: 'I should look at the file.' },
        { toolCall: { name: 'read_text_file', input: { path: '/work/project/notes.txt' }, result: 'hello' } },
        { usage: { inputTokens: 12, outputTokens: 3 }, contextWindow: 1000 },
      ],
      [{ text: 'The file says hello.' }],
    ]
    const output = await runScenario(async (s) => {
      const agent = s.start({ args: ['--model', s.scriptModel('model.json', [turn])] })
      await agent.initialize()
      const sessionId = await newSession(agent)
      expect((await prompt(agent, sessionId, 'what is in notes.txt?')).stopReason).toBe('end_turn')
      expect(answerText(agent, sessionId)).toBe('The file says hello.')
      const kinds = agent.updates.map((n) => n.update.sessionUpdate)
      expect(kinds).toEqual(expect.arrayContaining(['agent_thought_chunk', 'tool_call', 'tool_call_update']))
    })
    await expectScenarioSnapshot('script-tool-turn', output)
  })
})

/** Input lines the malformed-input scenario sends on purpose (1-based transcript lines). */
const DELIBERATELY_INVALID_INPUT = [
  'malformed-input:3',
  'malformed-input:5',
  'malformed-input:7',
  'malformed-input:9',
]

describe('every stored snapshot transcript', () => {
  const lines = readSnapshotTranscripts()

  it('holds only wire messages valid against the official ACP schema (unstable), but the bad input sent on purpose', () => {
    expect(new Set(lines.map((l) => l.scenario)).size).toBeGreaterThanOrEqual(12)
    const problems: string[] = []
    const invalidInput: string[] = []
    for (const line of lines) {
      const where = `${line.scenario}:${line.line}`
      const errors = validateAcpMessage(line.msg, line.answers !== undefined ? { method: line.answers } : {})
      if (line.dir === 'in' && errors.length > 0) invalidInput.push(where)
      else if (errors.length > 0) problems.push(`${where}: ${errors.join('; ')}`)
      if (line.dir === 'out' && typeof line.msg.method !== 'string' && line.answers === undefined) {
        const id = line.msg.id
        if (id !== null && !String(id).startsWith('raw-')) problems.push(`${where}: answers no request`)
      }
    }
    expect(problems).toEqual([])
    expect(invalidInput).toEqual(DELIBERATELY_INVALID_INPUT)
  })

  it('carries _meta.dsh only where schemas/acp-meta.schema.json defines it, and valid there', () => {
    const problems: string[] = []
    const seen = new Set<string>()
    for (const [index, line] of lines.entries()) {
      for (const site of dshMetaSites(line)) {
        const where = `${line.scenario}:${line.line} ${site.path}`
        if (site.def === undefined) {
          problems.push(`${where}: _meta.dsh is not defined here`)
          continue
        }
        const errors = publishedSchemaErrors('acp-meta', site.value, site.def)
        seen.add(`${site.def}${errors.length > 0 ? ' (invalid)' : ''}`)
        if (errors.length === 0) continue
        if (site.def !== 'forkParams') {
          problems.push(`${where}: ${errors.join('; ')}`)
          continue
        }
        // The server must refuse fork params outside the schema with INVALID_BOUNDARY.
        const answer = lines.slice(index + 1).find((l) => l.dir === 'out' && l.msg.id === line.msg.id)
        const error = answer?.msg.error as { code?: number; data?: { code?: string } } | undefined
        if (error?.code !== -32602 || error.data?.code !== 'INVALID_BOUNDARY') {
          problems.push(`${where}: accepted params outside the schema: ${JSON.stringify(answer?.msg)}`)
        }
      }
    }
    expect(problems).toEqual([])
    expect([...seen].sort()).toEqual([
      'authAccount',
      'forkParams',
      'forkParams (invalid)',
      'forkResult',
      'permissionSubagent',
      'promptResult',
      'sessionListEntry',
      'sessionUpdate',
      'toolCallSubagent',
      'userMessageSteered',
    ])
  })

  it('gives every session/update the seq of the event it came from; only the command list and a header title come from none', () => {
    // A rewind links the old file as its branch (the branch's header lives in its record, which the
    // snapshot does not keep): a file's first line names the session whose history it holds.
    const stores = new Map<string, { header: { title?: string } }>()
    const histories = new Map<string, Map<number, Record<string, unknown>>[]>()
    for (const {
      scenario,
      file,
      lines: [header, ...events],
    } of readSnapshotStores()) {
      const byFile = `${scenario}/${file.replace(/\.jsonl$/, '')}`
      const bySeq = new Map(events.map((e) => [(e as { seq: number }).seq, e as Record<string, unknown>]))
      stores.set(byFile, { header: header as { title?: string } })
      const history = `${scenario}/${(header as { id: string }).id}`
      histories.set(history, [...(histories.get(history) ?? []), bySeq])
    }
    const problems: string[] = []
    let titles = 0
    for (const line of lines) {
      if (line.dir !== 'out' || line.msg.method !== 'session/update') continue
      const params = line.msg.params as {
        sessionId: string
        update: { sessionUpdate: string; title?: string }
        _meta?: { dsh?: { seq?: number } }
      }
      const where = `${line.scenario}:${line.line} ${params.update.sessionUpdate}`
      const seq = params._meta?.dsh?.seq
      const store = stores.get(`${line.scenario}/${params.sessionId}`)
      if (params.update.sessionUpdate === 'available_commands_update') {
        if (params._meta !== undefined) problems.push(`${where}: the command list comes from no event`)
      } else if (seq === undefined) {
        // A rewind's branch (a linked file: its first line names the rewound session) has its own
        // header, and so its title, in its branch record, which the snapshot does not keep.
        const linkedBranch = (store?.header as { id?: string } | undefined)?.id !== params.sessionId
        if (
          params.update.sessionUpdate !== 'session_info_update' ||
          (store?.header.title !== params.update.title && !linkedBranch)
        )
          problems.push(`${where}: no seq, and not the title of the session's header`)
      } else if (params.update.sessionUpdate === 'session_info_update' && store) {
        titles++
        const goal = (params.update as { _meta?: { goal?: unknown } })._meta?.goal
        const gives = (event: { type?: string; data?: { title?: string } } | undefined) =>
          (event?.type === 'session/title' && event.data?.title === params.update.title) ||
          event?.type === 'user/message' ||
          (goal !== undefined && (event?.type === 'goal:updated' || event?.type === 'goal:cleared'))
        const candidates = (histories.get(`${line.scenario}/${params.sessionId}`) ?? []).map(
          (bySeq) => bySeq.get(seq) as { type?: string; data?: { title?: string } } | undefined,
        )
        if (!candidates.some(gives))
          problems.push(`${where}: seq ${seq} is ${JSON.stringify(candidates)}, not what gave the title`)
      }
    }
    expect(problems).toEqual([])
    expect(titles).toBeGreaterThan(10)
  })
})
