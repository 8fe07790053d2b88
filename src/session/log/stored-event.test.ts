import { describe, expect, it } from 'vitest'
import { storedEvent } from './stored-event.js'

describe('storedEvent', () => {
  it('reads its data only when looked at, frozen, and serializes like the event it stands for', () => {
    let reads = 0
    const event = storedEvent({ seq: 3, type: 'context/note', time: '2026-01-01T00:00:00.000Z' }, () => {
      reads++
      return { text: 'hello', nested: { list: [1, 2] } }
    })
    expect(reads).toBe(0)
    expect(Object.isFrozen(event)).toBe(true)
    expect(JSON.stringify(event)).toBe(
      '{"seq":3,"type":"context/note","time":"2026-01-01T00:00:00.000Z","data":{"text":"hello","nested":{"list":[1,2]}}}',
    )
    expect(reads).toBe(1)
    const data = event.data as { nested: { list: number[] } }
    expect(Object.isFrozen(data.nested.list)).toBe(true)
    expect(event).toEqual({
      seq: 3,
      type: 'context/note',
      time: '2026-01-01T00:00:00.000Z',
      data: { text: 'hello', nested: { list: [1, 2] } },
    })
  })

  it('a failing read throws at the reader, every time it is looked at', () => {
    const event = storedEvent({ seq: 1, type: 'context/note', time: 't' }, () => {
      throw new Error('gone')
    })
    expect(event.seq).toBe(1)
    expect(() => event.data).toThrow('gone')
    expect(() => JSON.stringify(event)).toThrow('gone')
  })
})
