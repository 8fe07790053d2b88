import { describe, expect, it } from 'vitest'
import * as entry from '../src/index.js'

describe('the public entry (src/index.ts)', () => {
  it('exports exactly the runtime names a program embedding dsh-acp needs', () => {
    // Adding a name here is a public API decision: no test doubles, no internals.
    expect(Object.keys(entry).sort()).toEqual([
      'ErrorCode',
      'ProtocolError',
      'Session',
      'SessionError',
      'SessionErrorCode',
      'SessionForkError',
      'SessionStore',
      'acpPlugin',
      'agentPlugin',
      'createApp',
      'defineMethod',
      'forkPlugin',
      'persistencePlugin',
      'resolveStoreDir',
      'sessionsPlugin',
    ])
  })
})
