import { describe, expect, it } from 'vitest'
import { NO_FEATURES } from '../../acp/views/client-features.js'
import { acpV1Renderer } from '../../acp/views/v1/renderer.js'
import type { SessionUpdate, WireUpdate } from '../../session/index.js'
import { createProvider } from '../providers/index.js'
import { modelTermsOf } from '../providers/model-terms.js'
import { ignoredUsageSettings } from './config-notices.js'
import { NoticeChannel } from './notice.js'

const notice = { severity: 'warning', title: 'Something happened', description: 'Details.' } as const

/** The channel's canonical updates as an ACP v1 client with or without `session.notices` is shown them. */
function channel(notices: boolean) {
  const sent: [WireUpdate, number][] = []
  const render = (update: SessionUpdate) =>
    acpV1Renderer.render({ sessionId: 's', update }, { ...NO_FEATURES, notices }).map((n) => n.update)
  const send = (update: SessionUpdate, seq: number) => {
    for (const shown of render(update)) sent.push([shown, seq])
  }
  return { sent, channel: new NoticeChannel(send) }
}

describe('NoticeChannel', () => {
  it('sends a notice update to a client that shows notices, whatever the fallback', () => {
    const { sent, channel: c } = channel(true)
    c.say(notice, 3, 'log')
    c.say({ severity: 'info', title: '' }, 4, 'message', 'said')
    expect(sent).toEqual([
      [
        {
          sessionUpdate: 'notice',
          severity: 'warning',
          title: 'Something happened',
          description: 'Details.',
        },
        3,
      ],
      [{ sessionUpdate: 'notice', severity: 'info', title: 'Notice' }, 4],
    ])
  })

  it('without the capability: an agent message for what matters, nothing for what is transient', () => {
    const { sent, channel: c } = channel(false)
    c.say(notice, 3, 'log')
    c.say(notice, 4, 'message')
    c.say(notice, 5, 'message', 'In other words.\n')
    expect(sent).toEqual([
      [
        {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: 'Something happened: Details.\n' },
        },
        4,
      ],
      [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'In other words.\n' } }, 5],
    ])
  })
})

describe('ignoredUsageSettings', () => {
  it('says that the echo model ignores windows and prices, and names models not offered', () => {
    const echo = createProvider('echo', { modelName: 'a' })
    const terms = modelTermsOf({
      contextWindow: 1000,
      prices: { input: 1, output: 1 },
      modelPrices: { z: { input: 1, output: 1 } },
    })
    expect(ignoredUsageSettings(echo, terms).map((n) => n.title)).toEqual([
      '--context-window and --price-* ignored',
      'Context windows or prices configured for models not offered',
    ])
    expect(ignoredUsageSettings(echo, {})).toEqual([])
  })
})
