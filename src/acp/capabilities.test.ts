import { describe, expect, it } from 'vitest'
import {
  agentCapabilities,
  capabilitiesAtStart,
  FORK_METHODS,
  PROVIDER_METHODS,
  SERVER_METHODS,
} from './capabilities.js'

const prompt = { image: false, audio: false, embeddedContext: true }

describe('the capability table', () => {
  it('answers a fresh server with and without the fork plugin, keys in the order initialize has always sent them', () => {
    expect(JSON.stringify(capabilitiesAtStart({ fork: true, promptCapabilities: prompt }))).toBe(
      '{"promptCapabilities":{"embeddedContext":true},' +
        '"mcpCapabilities":{"http":true},' +
        '"sessionCapabilities":{"additionalDirectories":{},"resume":{},"list":{},"close":{},"delete":{},"fork":{},' +
        '"archive":{},"status":{},"title":{},"workspaceTrust":{},"options":{},' +
        '"systemPrompt":{"mode":{"override":{}}}},' +
        '"loadSession":true,"auth":{"logout":{},"status":{}},"providers":{}}',
    )
    expect(capabilitiesAtStart({ fork: false, promptCapabilities: prompt }).sessionCapabilities).toEqual({
      additionalDirectories: {},
      resume: {},
      list: {},
      close: {},
      delete: {},
      archive: {},
      status: {},
      title: {},
      workspaceTrust: {},
      options: {},
      systemPrompt: { mode: { override: {} } },
    })
  })

  it('advertises only what is served, whatever the order the methods came in', () => {
    const served = new Set<string>(['session/load', 'session/list'])
    expect(agentCapabilities((method) => served.has(method), prompt)).toEqual({
      promptCapabilities: { embeddedContext: true },
      mcpCapabilities: { http: true },
      sessionCapabilities: { list: {} },
      loadSession: true,
    })
    // auth/status and providers/list each advertise where the unstable schema puts them.
    const providers = new Set<string>(['auth/status', 'providers/list'])
    expect(agentCapabilities((method) => providers.has(method), prompt)).toMatchObject({
      auth: { status: {} },
      providers: {},
    })
    expect(agentCapabilities(() => false, prompt)).toEqual({
      promptCapabilities: { embeddedContext: true },
      mcpCapabilities: { http: true },
      sessionCapabilities: {},
    })
  })

  it('sends no capability as false: what the agent lacks is absent (the schema defaults it to false)', () => {
    const all = { image: true, audio: true, embeddedContext: true }
    expect(capabilitiesAtStart({ fork: true, promptCapabilities: all }).promptCapabilities).toEqual(all)
    const none = { image: false, audio: false, embeddedContext: false }
    const json = JSON.stringify(capabilitiesAtStart({ fork: false, promptCapabilities: none }))
    expect(json).not.toContain('false')
  })

  it('lists each method under one plugin only', () => {
    const all: string[] = [...SERVER_METHODS, ...FORK_METHODS, ...PROVIDER_METHODS]
    expect(new Set(all).size).toBe(all.length)
  })
})
