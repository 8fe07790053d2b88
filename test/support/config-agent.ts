import { afterEach } from 'vitest'
import { ConfigHome } from './config-home.js'
import { completionStream, type FakeOpenAi, startFakeOpenAi } from './fake-openai.js'

/** An agent process as the set-up ends it: stopped, then its own files removed (when it has any). */
interface EndedAgent {
  stop(): Promise<unknown>
  cleanup?(): void
}

/**
 * The set-up the auth, providers and config-flags tests share: a configuration home, agent
 * processes that read it, and a fake model server, all ended after each test (see
 * {@link configAgentSetup}).
 */
export interface ConfigAgentSetup {
  /** A fresh configuration home (`DSH_HOME`, `XDG_CONFIG_HOME`), removed after the test. */
  home(): ConfigHome
  /** `agent`, stopped and cleaned up after the test (stopping one the test stopped is harmless). */
  agent<A extends EndedAgent>(agent: A): A
  /** A fake OpenAI-compatible server, closed after the test. */
  fake(server: Promise<FakeOpenAi>): Promise<FakeOpenAi>
}

/**
 * Registers, in the calling file, an `afterEach` that stops every agent the test started through
 * the set-up (then removes its own store), closes its fake servers and removes its homes, in that
 * order.
 */
export function configAgentSetup(): ConfigAgentSetup {
  const agents: EndedAgent[] = []
  const fakes: FakeOpenAi[] = []
  const homes: ConfigHome[] = []
  afterEach(async () => {
    for (const agent of agents.splice(0)) {
      await agent.stop()
      agent.cleanup?.()
    }
    for (const fake of fakes.splice(0)) await fake.close()
    for (const home of homes.splice(0)) home.cleanup()
  })
  return {
    home() {
      const home = new ConfigHome()
      homes.push(home)
      return home
    },
    agent(agent) {
      agents.push(agent)
      return agent
    },
    async fake(server) {
      const started = await server
      fakes.push(started)
      return started
    },
  }
}

/** The request's error, or undefined when it succeeded. */
export function failure(request: Promise<unknown>): Promise<{ code: number; message: string } | undefined> {
  return request.then(
    () => undefined,
    (error: { code: number; message: string }) => error,
  )
}

/**
 * A fake server that refuses every request without `Bearer key` (401, as OpenAI words it) and
 * streams `hello from <model>` to every other; `check`: a request that does not stream (a set-up's
 * key check) is answered `OK`.
 */
export function keyedFakeServer(key: string, { check = false } = {}): Promise<FakeOpenAi> {
  return startFakeOpenAi((request) => {
    if (request.headers.authorization !== `Bearer ${key}`)
      return { status: 401, body: { error: { message: 'Incorrect API key provided' } } }
    if (check && request.body?.stream !== true)
      return { status: 200, body: { choices: [{ message: { content: 'OK' } }] } }
    return { stream: completionStream({ text: `hello from ${String(request.body?.model)}` }) }
  })
}
