import { describe, expect, it } from 'vitest'
import type { SessionId } from '../../../session/ids.js'
import { PgStreams } from './streams.js'

const id = 'ses_1' as SessionId
const update = (text: string) => ({
  sessionId: 'ses_1',
  update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
})

describe('a turn streamed between hosts', () => {
  it('sends each chunk as one NOTIFY payload naming the session and this host, none too large for one', () => {
    const sent: string[] = []
    const streams = new PgStreams('host-a', (payload) => sent.push(payload))
    streams.publish(id, { seq: 4, n: 0, update: update('hi') })
    streams.publish(id, { seq: 4, n: 1, update: update('x'.repeat(9000)) })
    expect(sent.map((p) => JSON.parse(p))).toEqual([
      { session: 'ses_1', from: 'host-a', seq: 4, n: 0, update: update('hi') },
    ])
  })

  it("keeps other hosts' chunks until read, for the writers asked about; its own and malformed ones are dropped", () => {
    const streams = new PgStreams('host-b', () => {})
    let told = 0
    const stop = streams.watchChunks(id, () => told++)
    streams.hear(id, { session: id, from: 'host-a', seq: 4, n: 0, update: update('a') })
    streams.hear(id, { session: id, from: 'host-b', seq: 4, n: 0, update: update('own') })
    streams.hear(id, { session: id, from: 'host-c', seq: 7, n: 0, update: update('c') })
    streams.hear(id, { session: id, from: 'host-a', seq: 'x', n: 1, update: update('bad') })
    expect(told).toBe(2)
    expect(streams.read(id, ['host-a'])).toEqual([{ seq: 4, n: 0, update: update('a') }])
    expect(streams.read(id, ['host-a', 'host-c'])).toEqual([])
    stop()
    streams.hear(id, { session: id, from: 'host-a', seq: 4, n: 1, update: update('b') })
    expect(told).toBe(2)
  })
})
