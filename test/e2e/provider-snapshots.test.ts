import { describe, expect, it } from 'vitest'
import { expectScenarioSnapshot, runScenario } from '../support/snapshot-scenario.js'

/**
 * Transcript snapshot of the provider methods (unstable schema) as an editor's settings page
 * drives them (test/snapshots/providers-settings): it reads the key state and the providers, points
 * `main` at another server, disables `local` (announced by `auth/status_update`), and is refused
 * another protocol and the required provider. No server is contacted (no prompt is sent), so the
 * URLs are fixed. A key given in `providers/set` is not in it: a transcript records it as `***`,
 * which a replay cannot send back (providers.test.ts covers the key).
 */
const CONFIG = {
  providers: {
    main: {
      title: 'Main',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKeyEnv: 'DSH_SNAPSHOT_MAIN_KEY',
      models: [{ name: 'main-model' }],
    },
    local: { baseUrl: 'http://127.0.0.1:11434/v1', keyRequired: false, models: [{ name: 'qwen' }] },
  },
  defaultModel: 'main/main-model',
}

const failure = (request: Promise<unknown>) =>
  request.then(
    () => undefined,
    (error: { code: number }) => error.code,
  )

describe('provider transcript snapshots', () => {
  it('providers-settings: auth/status, providers/list, set, disable, refusals', async () => {
    const output = await runScenario(async (s) => {
      s.userConfig(CONFIG)
      const agent = s.start()
      await agent.initialize()
      const request = <T>(method: string, params: unknown) => agent.agent.request<T>(method, params)
      expect(await request<{ state: string }>('auth/status', {})).toMatchObject({ state: 'unauthenticated' })
      await request('providers/list', {})
      await request('providers/set', {
        providerId: 'main',
        apiType: 'openai',
        baseUrl: 'http://127.0.0.1:8/v1',
      })
      expect(await request<{ state: string }>('auth/status', {})).toMatchObject({ state: 'unauthenticated' })
      await request('providers/disable', { providerId: 'local' })
      await request('providers/list', {})
      expect(
        await failure(
          request('providers/set', {
            providerId: 'main',
            apiType: 'anthropic',
            baseUrl: 'http://127.0.0.1:8',
          }),
        ),
      ).toBe(-32602)
      expect(await failure(request('providers/disable', { providerId: 'main' }))).toBe(-32602)
    })
    await expectScenarioSnapshot('providers-settings', output)
  })
})
