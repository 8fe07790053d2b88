import { closeSync, openSync, readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SessionErrorCode } from '../../src/session/index.js'
import { FULL_RUN } from '../support/long-runs.js'
import { appendTurn, startStore, tempDir } from '../support/session-store.js'

let store: ReturnType<typeof tempDir>
beforeAll(() => {
  store = tempDir()
})
afterAll(() => store.cleanup())

/** Line start offsets of a file's bytes (line 1 = index 0), plus the end. */
function lineStarts(bytes: Buffer): number[] {
  const starts = [0]
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) starts.push(i + 1)
  return starts
}

describe('torn tails and corruption', () => {
  it('recovers every complete event before a cut at any byte of the last two events, then appends', async () => {
    const s = await startStore(store.dir)
    const source = s.sessions.create('trunc_src', { meta: { cwd: '/t' } })
    appendTurn(source, 'first')
    source.append({ type: 'context/note', data: { text: `multi-byte ✓ é 😀 ${'z'.repeat(50)}` } })
    source.append({ type: 'session/title', data: { title: 'last one' } })
    const events = source.events()
    await s.sessions.close(source.id)
    await s.persistence.idle()
    const original = readFileSync(join(store.dir, 'trunc_src.jsonl'))
    const starts = lineStarts(original)
    const lastTwoStart = starts[starts.length - 3] as number
    const file = join(store.dir, 'trunc_cut.jsonl')
    let checked = 0
    // `npm test`: every line boundary and the bytes beside it, every cut inside a multi-byte
    // character, and every seventh byte; test:full: every byte.
    const nearBoundary = (cut: number) =>
      starts.some((start) => Math.abs(start - cut) <= 1) || (original[cut] ?? 0) >= 0x80
    const cuts = Array.from({ length: original.length - lastTwoStart + 1 }, (_, i) => lastTwoStart + i)
    for (const cut of cuts.filter((c) => FULL_RUN || nearBoundary(c) || (c - lastTwoStart) % 7 === 0)) {
      const bytes = Buffer.from(original.subarray(0, cut))
      const header = JSON.stringify({
        ...JSON.parse(bytes.subarray(0, (starts[1] as number) - 1).toString()),
        id: 'trunc_cut',
      })
      writeFileSync(file, Buffer.concat([Buffer.from(`${header}\n`), bytes.subarray(starts[1] as number)]))
      const complete = starts.filter((start) => start <= cut).length - 2
      const session = await s.sessions.load('trunc_cut')
      expect(session.events(), `cut at ${cut}`).toEqual(events.slice(0, complete))
      session.append({ type: 'context/note', data: { text: 'after the cut' } })
      await s.sessions.close('trunc_cut')
      await s.persistence.idle()
      const again = await s.sessions.load('trunc_cut')
      expect(again.lastSeq).toBe(complete + 1)
      expect(again.at(complete + 1)?.data).toEqual({ text: 'after the cut' })
      await s.sessions.close('trunc_cut')
      await s.persistence.idle()
      expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true)
      checked++
    }
    expect(checked).toBeGreaterThan(FULL_RUN ? 60 : 20)
    await s.stop()
  })

  it('treats an unparsable complete last line as a torn tail', async () => {
    const s = await startStore(store.dir)
    const session = s.sessions.create('garbage_tail')
    appendTurn(session, 'x')
    await s.sessions.close(session.id)
    await s.persistence.idle()
    const file = join(store.dir, 'garbage_tail.jsonl')
    const before = readFileSync(file)
    writeFileSync(file, Buffer.concat([before, Buffer.from('{"seq":7,"type":\n')]))
    const loaded = await s.sessions.load('garbage_tail')
    expect(loaded.lastSeq).toBe(6)
    expect(readFileSync(file)).toEqual(before)
    await s.stop()
  })

  it('fails with CORRUPT_SESSION naming file and line for a bad line in the middle, and changes nothing', async () => {
    const s = await startStore(store.dir)
    const session = s.sessions.create('mid_bad')
    appendTurn(session, 'x')
    await s.sessions.close(session.id)
    await s.persistence.idle()
    const file = join(store.dir, 'mid_bad.jsonl')
    const lines = readFileSync(file, 'utf8').split('\n')
    lines[3] = `${lines[3]?.slice(0, 10)}`
    const damaged = lines.join('\n')
    writeFileSync(file, damaged)
    await expect(s.sessions.load('mid_bad')).rejects.toMatchObject({
      code: SessionErrorCode.CORRUPT_SESSION,
      data: { file, line: 4 },
      message: expect.stringContaining(`${file}:4`),
    })
    expect(readFileSync(file, 'utf8')).toBe(damaged)
    lines[3] = JSON.stringify({ ...JSON.parse(lines[4] as string), seq: 9 })
    writeFileSync(file, lines.join('\n'))
    await expect(s.sessions.load('mid_bad')).rejects.toMatchObject({ data: { line: 4 } })
    await s.stop()
  })

  it('checks the header against the log', async () => {
    const s = await startStore(store.dir)
    const file = join(store.dir, 'bad_header.jsonl')
    const header = { version: 1, id: 'bad_header', createdAt: '2024-01-01T00:00:00.000Z', cwd: '/' }
    writeFileSync(file, `${JSON.stringify({ ...header, seedLength: 3 })}\n`)
    await expect(s.sessions.load('bad_header')).rejects.toMatchObject({ code: 'CORRUPT_SESSION' })
    writeFileSync(file, `${JSON.stringify({ ...header, id: 'other' })}\n`)
    await expect(s.sessions.load('bad_header')).rejects.toMatchObject({ code: 'CORRUPT_SESSION' })
    writeFileSync(file, `${JSON.stringify({ ...header, version: 2 })}\n`)
    await expect(s.sessions.load('bad_header')).rejects.toMatchObject({ code: 'CORRUPT_SESSION' })
    const fd = openSync(file, 'w')
    closeSync(fd)
    await expect(s.sessions.load('bad_header')).rejects.toMatchObject({ code: 'CORRUPT_SESSION' })
    writeFileSync(file, `${JSON.stringify(header)}\n`)
    truncateSync(file, 20)
    await expect(s.sessions.load('bad_header')).rejects.toMatchObject({ code: 'CORRUPT_SESSION' })
    await s.stop()
  })
})
