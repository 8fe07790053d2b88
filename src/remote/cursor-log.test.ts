import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CursorLog } from './cursor-log.js'

describe('CursorLog', () => {
  it('after(c) is every message after c when all of them are kept, else undefined', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 60 }),
        fc.integer({ min: -2, max: 70 }),
        (kept, lines, cursor) => {
          const log = new CursorLog({ messages: kept, seconds: 3600, bytes: 1e9 })
          for (const line of lines) log.append(line)
          const after = log.after(cursor)
          const oldest = Math.max(1, lines.length - kept + 1)
          if (cursor < oldest - 1 || cursor > lines.length) expect(after).toBeUndefined()
          else {
            expect(after?.map((e) => e.cursor)).toEqual(
              Array.from({ length: lines.length - cursor }, (_, i) => cursor + 1 + i),
            )
            expect(after?.map((e) => e.line)).toEqual(lines.slice(cursor))
          }
        },
      ),
    )
  })

  it('forgets messages older than the retention time and beyond the byte cap', () => {
    let now = 0
    const log = new CursorLog({ messages: 100, seconds: 10, bytes: 10 }, () => now)
    log.append('aaaa')
    now = 11_000
    log.append('bbbb')
    expect(log.after(0)).toBeUndefined()
    expect(log.after(1)?.map((e) => e.line)).toEqual(['bbbb'])
    log.append('cccc')
    log.append('dddd')
    expect(log.after(1)).toBeUndefined()
    expect(log.after(2)?.map((e) => e.line)).toEqual(['cccc', 'dddd'])
  })

  it('hands each appended message to its listener, in order', () => {
    const log = new CursorLog({ messages: 5, seconds: 60, bytes: 1000 })
    const seen: number[] = []
    log.listen((entry) => seen.push(entry.cursor))
    for (const line of ['a', 'b', 'c']) log.append(line)
    log.listen(undefined)
    log.append('d')
    expect(seen).toEqual([1, 2, 3])
    expect(log.lastCursor).toBe(4)
  })
})
