import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionErrorCode } from '../../session/errors.js'
import { readAppended } from './read-appended.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const line = (seq: number) =>
  `${JSON.stringify({ seq, type: 'context/note', time: 't', data: { text: `n${seq}` } })}\n`

/** Reads what follows `view` (bytes a view ends at) in a file holding `view` + `tail`. */
function read(view: string, tail: string, firstSeq: number) {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-appended-'))
  dirs.push(dir)
  const path = join(dir, 's.jsonl')
  writeFileSync(path, view + tail)
  const fd = openSync(path, 'r')
  try {
    const file = { readSync: (b: Uint8Array, o: number, l: number, p: number) => readSync(fd, b, o, l, p) }
    return readAppended(file, path, Buffer.byteLength(view), firstSeq)
  } finally {
    closeSync(fd)
  }
}

describe('readAppended: what another process appended after a view', () => {
  const view = `{"version":1}\n${line(1)}`

  it('reads whole lines in order and says where each ends', () => {
    const found = read(view, line(2) + line(3), 2)
    expect(found.events.map((e) => e.seq)).toEqual([2, 3])
    expect(found.ends).toEqual([view.length + line(2).length, view.length + line(2).length + line(3).length])
    expect(found.tornAt).toBeUndefined()
  })

  it('stops at a line without newline, or a last line that does not parse: a torn tail', () => {
    expect(read(view, line(2) + line(3).slice(0, 9), 2)).toMatchObject({
      events: [{ seq: 2 }],
      tornAt: view.length + line(2).length,
    })
    expect(read(view, `${line(2)}{"seq":3,"ty\n`, 2)).toMatchObject({
      events: [{ seq: 2 }],
      tornAt: view.length + line(2).length,
    })
  })

  it('a bad line with a good one after it, or a seq out of order, is corruption', () => {
    expect(() => read(view, `{"seq":2,"ty\n${line(3)}`, 2)).toThrow(
      expect.objectContaining({ code: SessionErrorCode.CORRUPT_SESSION }),
    )
    expect(() => read(view, line(3), 2)).toThrow(
      expect.objectContaining({
        code: SessionErrorCode.CORRUPT_SESSION,
        message: expect.stringContaining('seq 2'),
      }),
    )
  })
})
