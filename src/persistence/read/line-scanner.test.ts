import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDirPerTest } from '../../../test/support/session-store.js'
import type { OpenFile } from '../fs/file-system.js'
import { nodeFileSystem } from '../fs/file-system.js'
import { scanLines } from './line-scanner.js'

const temp = tempDirPerTest('line-scanner-')
const files: OpenFile[] = []

afterEach(async () => {
  for (const file of files.splice(0)) await file.close()
})

async function fileOf(text: string): Promise<OpenFile> {
  const path = join(temp.dir, `lines-${files.length}`)
  writeFileSync(path, text)
  const file = await nodeFileSystem.open(path, 'r')
  files.push(file)
  return file
}

/** `count` lines of `bytes` bytes each (newline included): 40 KB lines put ~25 in one 1 MiB read. */
function longLines(count: number, bytes: number): string {
  let text = ''
  for (let i = 1; i <= count; i++) text += `${i}:`.padEnd(bytes - 1, 'x') + '\n'
  return text
}

describe('scanLines', () => {
  it('passes every complete line with its offset, lines across reads joined, and says where they end', async () => {
    const text = `${longLines(60, 40_000)}a torn tail`
    const file = await fileOf(text)
    const seen: Array<[string, number]> = []
    const result = await scanLines(file, 0, (line, offset) => {
      seen.push([line.toString('latin1', 0, 4), offset])
    })
    expect(seen).toHaveLength(60)
    seen.forEach(([head, offset], i) => {
      expect(head.startsWith(`${i + 1}:`)).toBe(true)
      expect(offset).toBe(i * 40_000)
    })
    expect(result).toEqual({ completeEnd: 60 * 40_000, end: Buffer.byteLength(text) })
  })

  it('passes a line longer than several reads whole, and the lines around and after it', async () => {
    const long = `${'y'.repeat(3_500_000)}é`
    const after = longLines(60, 40_000)
    const file = await fileOf(`first\n${long}\n${after}last\n`)
    const seen: Array<[string, number]> = []
    await scanLines(file, 0, (line, offset) => {
      seen.push([line.toString('utf8'), offset])
    })
    const afterStart = 6 + Buffer.byteLength(long) + 1
    const afterLines = after.split('\n').slice(0, -1)
    expect(seen).toEqual([
      ['first', 0],
      [long, 6],
      ...afterLines.map((text, i): [string, number] => [text, afterStart + i * 40_000]),
      ['last', afterStart + after.length],
    ])
  })

  it("gives the event loop a turn between long lines while the consumer's last promise is pending", async () => {
    const file = await fileOf(longLines(60, 40_000))
    let lines = 0
    let turnAfterLine: number | undefined
    let settle = () => {}
    const pending = new Promise<void>((resolve) => (settle = resolve))
    await scanLines(file, 0, () => {
      lines++
      // Line 3 is in the second read (1 MiB, lines 2-27): without a turn inside that chunk the
      // immediate would wait for the chunk's end.
      if (lines === 3)
        setImmediate(() => {
          turnAfterLine = lines
          settle()
        })
      return lines >= 3 ? pending : undefined
    })
    expect(turnAfterLine).toBeDefined()
    expect(turnAfterLine).toBeLessThan(10)
  })

  it('gives no turn inside a chunk to a consumer that returns no promise', async () => {
    const file = await fileOf(longLines(60, 40_000))
    let lines = 0
    let turnAfterLine: number | undefined
    await scanLines(file, 0, () => {
      lines++
      if (lines === 3) setImmediate(() => (turnAfterLine = lines))
    })
    expect(turnAfterLine).toBeGreaterThanOrEqual(20)
  })

  it("reads the next chunk only once the consumer's last promise of this chunk settled, and throws its rejection", async () => {
    const file = await fileOf(longLines(60, 40_000))
    const reads: number[] = []
    const counted: OpenFile = Object.assign(Object.create(file) as OpenFile, {
      read: (buffer: Buffer, offset: number, length: number, position: number) => {
        reads.push(position)
        return file.read(buffer, offset, length, position)
      },
    })
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    let lines = 0
    const scan = scanLines(counted, 0, () => (++lines === 1 ? held : undefined))
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
    expect(reads).toEqual([0])
    release()
    await scan
    expect(reads.length).toBeGreaterThan(2)

    // Rejected at line 3, awaited at its chunk's end, after turns: never unhandled.
    let gone: Promise<void> | undefined
    let seen = 0
    const failing = scanLines(file, 0, () => {
      if (++seen < 3) return
      gone ??= Promise.reject(new Error('output gone'))
      return gone
    })
    await expect(failing).rejects.toThrow('output gone')
  })
})
