import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { completionStream } from '../support/fake-openai.js'
import { API_KEY, OpenAiAgent } from '../support/openai-agent.js'

/**
 * The API key (`DSH_API_KEY`) goes to the model server and nowhere else: not on stdout, not on
 * stderr (logs at debug level), not in a store file, not in a `--transcript` file, even when the
 * server echoes it back in its error messages, as OpenAI does for a wrong key.
 */

let run: OpenAiAgent | undefined
afterEach(async () => {
  await run?.dispose()
  run = undefined
})

const echoesKey = (status: number, headers: Record<string, string> = {}) => ({
  status,
  headers,
  body: { error: { message: `Incorrect API key provided: ${API_KEY}. Check your key.` } },
})

describe('the API key stays secret', () => {
  it('appears in no stdout line, no stderr output, no store file and no transcript', async () => {
    let transcript = ''
    run = await OpenAiAgent.start({
      script: [
        echoesKey(429, { 'retry-after': '0' }),
        {
          stream: completionStream({
            toolCalls: [
              { id: 'call_1', name: 'write_text_file', arguments: '{"path":"k.txt","content":"x"}' },
            ],
          }),
        },
        { stream: completionStream({ text: 'done', usage: { prompt: 5, completion: 1 } }) },
        echoesKey(401),
      ],
      setupClient: (app) => {
        app.onRequest('session/request_permission', () => ({
          outcome: { outcome: 'selected', optionId: 'allow_once' },
        }))
      },
      args: (scratch) => ['--transcript', join(scratch, 'transcript.jsonl')],
    })
    transcript = join(run.scratch, 'transcript.jsonl')
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'write k.txt')).stopReason).toBe('end_turn')
    const error = await run.prompt(sessionId, 'again').then(
      () => undefined,
      (reason: { code: number; message: string }) => reason,
    )
    expect(error?.code).toBe(-32020)
    expect(error?.message).toContain('HTTP 401')
    expect(error?.message).toContain('Incorrect API key provided')
    await run.replay(sessionId)
    const forked = await run.agent.agent.request('session/fork', { sessionId, cwd: run.cwd, mcpServers: [] })
    expect(forked.sessionId).not.toBe(sessionId)
    expect(await run.agent.stop()).toBe(0)

    // The key did reach the server, and each place searched below really holds output.
    expect(run.fake.requests.map((r) => r.headers.authorization)).toEqual(Array(4).fill(`Bearer ${API_KEY}`))
    const stdout = run.agent.audit.entries.filter((e) => e.dir === 'out').map((e) => e.line)
    expect(stdout.join('\n')).toContain('Incorrect API key provided')
    expect(run.agent.stderr).toContain('HTTP 429')
    const storeFiles = run.storeFiles().filter((f) => f.name.endsWith('.jsonl'))
    expect(storeFiles).toHaveLength(2)
    const transcriptText = readFileSync(transcript, 'utf8')
    expect(transcriptText).toContain('session/fork')

    for (const line of stdout) expect(line).not.toContain(API_KEY)
    expect(run.agent.stderr).not.toContain(API_KEY)
    for (const file of run.storeFiles()) expect(file.text, file.name).not.toContain(API_KEY)
    expect(transcriptText).not.toContain(API_KEY)
    expect(run.agent.audit.problems).toEqual([])
  })
})
