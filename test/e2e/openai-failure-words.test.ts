import { describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { completionStream, type FakeOpenAi, type FakeReply, startFakeOpenAi } from '../support/fake-openai.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'

/**
 * What a user reads when the model server fails: one sentence saying what failed and what to try,
 * prefixed once ("the model failed: "), with the technical cause (error codes, the server's full
 * text) only on stderr; and a notice at start when no API key is set.
 */

const start = openAiAgents()

/** The one prompt's error message of a run whose server answers every request with `reply`. */
async function failureOf(script: readonly FakeReply[], apiKey?: string) {
  const run = await start({ script, ...(apiKey !== undefined && { apiKey }), args: ['--max-retries', '0'] })
  const sessionId = await run.newSession()
  const error = (await run.prompt(sessionId, 'hi').then(
    () => undefined,
    (reason: unknown) => reason,
  )) as { code: number; message: string }
  expect(error.code).toBe(-32020)
  expect(run.loggedEvents(sessionId).at(-1)).toMatchObject({
    data: { reason: 'error', message: error.message.replace(/^the model failed: /, '') },
  })
  return { run, message: error.message }
}

describe('openai end to end: model-server failures in words', () => {
  it('a 401 with an empty key says that no key was sent; the start said so too', async () => {
    const { run, message } = await failureOf(
      [{ status: 401, body: { error: { message: 'Missing bearer token' } } }],
      '',
    )
    expect(message).toBe(
      `the model failed: the model server at ${run.fake.url}/chat/completions refused the request (HTTP 401 Unauthorized: Missing bearer token). No API key was sent (DSH_API_KEY is not set or empty): set it to the server's API key and start dsh-acp again.`,
    )
    expect(run.agent.stderr).toContain(
      `DSH_API_KEY is empty: requests to ${run.fake.url} are sent without an API key`,
    )
    await expectCleanExit(run)
  })

  it('a 403 with a key says the key in DSH_API_KEY was not accepted', async () => {
    const { run, message } = await failureOf([
      { status: 403, body: { error: { message: 'Invalid API key' } } },
    ])
    expect(message).toMatch(
      /refused the request \(HTTP 403 Forbidden: Invalid API key\)\. It did not accept the key in DSH_API_KEY/,
    )
    expect(run.agent.stderr).not.toContain('DSH_API_KEY is')
    await expectCleanExit(run)
  })

  it('404, 429, 5xx and a context-length 400 each say what to try; the cause is logged, not shown', async () => {
    const cases: [FakeReply, RegExp][] = [
      [
        { status: 404, body: { error: { message: 'The model `gpt-9` does not exist' } } },
        /answered HTTP 404 Not Found: The model `gpt-9` does not exist\. Check the model name \(--model-name\) and that --base-url is the API root/,
      ],
      [
        { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'Rate limit reached' } } },
        /is limiting requests \(HTTP 429 Too Many Requests: Rate limit reached\)\. Wait a while, then retry the turn\.$/,
      ],
      [
        { status: 503, body: 'upstream connect error' },
        /failed \(HTTP 503 Service Unavailable: upstream connect error\)\. It may be down or overloaded; the turn can be retried later\.$/,
      ],
      [
        {
          status: 400,
          body: {
            error: {
              message:
                "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.",
              code: 'context_length_exceeded',
            },
          },
        },
        /^the model failed: the conversation is too long for the model's context window \(.*HTTP 400 Bad Request: This model's maximum context length is 8192 tokens.*\)\. Run \/compact, start a new session, or fork this one from an earlier turn\. Compacting the conversation did not help: there is no conversation before this turn to compact\.$/,
      ],
    ]
    for (const [reply, expected] of cases) {
      const { run, message } = await failureOf([reply])
      expect(message).toMatch(expected)
      expect(message.match(/failed/g)?.length ?? 0).toBeLessThanOrEqual(2)
      expect(message).not.toMatch(/model openai failed/)
      await expectCleanExit(run)
    }
  }, 60_000)

  it('a connection the server closes says so in words; UND_ERR_SOCKET and the like only reach stderr', async () => {
    const { run, message } = await failureOf([{ reset: true }])
    expect(message).toBe(
      `the model failed: could not reach the model server at ${run.fake.url}/chat/completions: the connection was closed. Check the network or --base-url; the turn can be retried.`,
    )
    const closedAt = run.agent.stderr.indexOf('the connection was closed. Check')
    expect(closedAt).toBeGreaterThanOrEqual(0)
    expect(run.agent.stderr.slice(closedAt)).toMatch(/\((?:[A-Z_]+: )?[^)]*(socket|closed|ECONNRESET)/i)
    await expectCleanExit(run)
  })

  it('a stream that is not chat completions is called malformed', async () => {
    const { run, message } = await failureOf([{ stream: [{ raw: 'data: <html>oops</html>\n\n' }] }])
    expect(message).toMatch(/sent a malformed stream\. Check that --base-url points at an OpenAI-compatible/)
    expect(run.agent.stderr).toContain('<html>oops</html>')
    await expectCleanExit(run)
  })
})

describe('openai end to end: no API key at all', () => {
  const servers: FakeOpenAi[] = []
  it.skipIf(process.env.DSH_API_KEY !== undefined)(
    'warns once at start for a remote server, and only informs for a local one; never refuses',
    async () => {
      // A remote-looking base URL that is never contacted: the notice comes at start.
      const remote = new AgentProcess({
        args: ['--model', 'openai', '--base-url', 'https://models.example.com/v1?key=x', '--model-name', 'm'],
      })
      await remote.initialize({})
      await expect
        .poll(() => remote.stderr)
        .toMatch(
          /\[W\].*DSH_API_KEY is not set: requests to https:\/\/models\.example\.com\/v1 are sent without an API key/,
        )
      expect(remote.stderr.match(/DSH_API_KEY is not set/g)).toHaveLength(1)
      expect(remote.stderr).not.toContain('key=x')
      expect(await remote.stop()).toBe(0)
      remote.cleanup()

      const fake = await startFakeOpenAi([{ stream: completionStream({ text: 'local answer' }) }])
      servers.push(fake)
      const local = new AgentProcess({
        args: ['--model', 'openai', '--base-url', fake.url, '--model-name', 'm'],
      })
      await local.initialize({})
      const { sessionId } = await local.agent.request('session/new', { cwd: local.cwd, mcpServers: [] })
      const answer = await local.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'hi' }],
      })
      expect(answer.stopReason).toBe('end_turn')
      expect(local.stderr).toMatch(
        /\[I\].*DSH_API_KEY is not set: requests to http:\/\/127\.0\.0\.1:\d+\/v1 are sent without an API key/,
      )
      expect(local.stderr).not.toMatch(/\[W\].*DSH_API_KEY/)
      expect(await local.stop()).toBe(0)
      local.cleanup()
      await Promise.all(servers.splice(0).map((server) => server.close()))
    },
  )
})
