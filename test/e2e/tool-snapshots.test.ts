import { describe, expect, it } from 'vitest'
import { completionStream, type FakeScript, fakeServerPerTest } from '../support/fake-openai.js'
import { newSession, prompt } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario } from '../support/snapshot-scenario.js'

/**
 * Transcript snapshots of how tool calls look to an editor (test/snapshots/tool-*): an edit shown
 * as an ACP diff, and a command run in the editor's terminal (embedded in the tool call), each
 * followed by a `session/load` that replays them.
 */

const fake = fakeServerPerTest()
const modelArgs = (script: FakeScript) => fake.args(script)

describe('tool call transcript snapshots', () => {
  it('tool-edit-diff: an edit asks permission, runs through the editor and ends with its diff', async () => {
    const args = await modelArgs([
      {
        stream: completionStream({
          toolCalls: [
            {
              id: 'call_e',
              name: 'edit_text_file',
              arguments: JSON.stringify({
                path: 'src/app.ts',
                edits: [{ oldText: 'const answer = 41', newText: 'const answer = 42' }],
              }),
            },
          ],
        }),
      },
      { stream: completionStream({ text: 'Fixed the answer.' }) },
    ])
    const output = await runScenario(async (s) => {
      const agent = s.start({
        args,
        setupClient: (app) => {
          app.onRequest('session/request_permission', () => ({
            outcome: { outcome: 'selected', optionId: 'allow_once' },
          }))
          app.onRequest('fs/read_text_file', () => ({
            content: 'const answer = 41\nexport default answer\n',
          }))
          app.onRequest('fs/write_text_file', () => ({}))
        },
      })
      await agent.initialize({ fs: { readTextFile: true, writeTextFile: true } })
      const sessionId = await newSession(agent)
      expect(await prompt(agent, sessionId, 'fix the answer in src/app.ts')).toMatchObject({
        stopReason: 'end_turn',
      })
      await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
    })
    await expectScenarioSnapshot('tool-edit-diff', output)
  })

  it('tool-terminal-command: a command allowed always runs in the editor terminal, embedded in the call', async () => {
    const args = await modelArgs([
      {
        stream: completionStream({
          toolCalls: [{ id: 'call_t', name: 'run_command', arguments: '{"command":"npm test"}' }],
        }),
      },
      { stream: completionStream({ text: 'The tests pass.' }) },
    ])
    const output = await runScenario(async (s) => {
      const agent = s.start({
        args,
        setupClient: (app) => {
          app.onRequest('session/request_permission', () => ({
            outcome: { outcome: 'selected', optionId: 'allow_always' },
          }))
          app.onRequest('terminal/create', () => ({ terminalId: 'term_1' }))
          app.onRequest('terminal/wait_for_exit', () => ({ exitCode: 0, signal: null }))
          app.onRequest('terminal/output', () => ({
            output: '12 tests passed\n',
            truncated: false,
            exitStatus: { exitCode: 0, signal: null },
          }))
          app.onRequest('terminal/release', () => ({}))
        },
      })
      await agent.initialize({ terminal: true })
      const sessionId = await newSession(agent)
      expect(await prompt(agent, sessionId, 'run the tests')).toMatchObject({ stopReason: 'end_turn' })
      await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
    })
    await expectScenarioSnapshot('tool-terminal-command', output)
  })
})
