import { describe, expect, it } from 'vitest'
import {
  CANCELLED_TURN,
  FORK_STORY,
  PERMISSION_TURN,
  type RemoteScenario,
  transcriptOver,
} from '../support/remote-scenarios.js'

/**
 * `dsh-acp serve --listen` driven by the SDK's own HTTP and WebSocket clients records the same
 * transcript (normalized) as the same scenario over stdio: a remote editor sees what a local one
 * does, message for message.
 */
const SCENARIOS: ReadonlyArray<[string, RemoteScenario, string]> = [
  ['the fork story', FORK_STORY, '"session/fork"'],
  ['a tool turn that asks permission', PERMISSION_TURN, '"session/request_permission"'],
  ['a cancelled turn', CANCELLED_TURN, '"stopReason":"cancelled"'],
]

describe.each(SCENARIOS)('%s over HTTP and WebSocket', (_name, scenario, shows) => {
  it('records the transcript it records over stdio', async () => {
    const stdio = await transcriptOver('stdio', scenario)
    expect(stdio).toContain(shows)
    expect(await transcriptOver('http', scenario)).toBe(stdio)
    expect(await transcriptOver('ws', scenario)).toBe(stdio)
  })
})
