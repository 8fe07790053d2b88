import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FaultyFileSystem } from '../fs/faulty-file-system.js'
import { type FileSystem, nodeFileSystem } from '../fs/file-system.js'
import { type CopyOptions, copyPrefix } from './prefix-copy.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-prefix-copy-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** A parent file: a header line, then `count` lines of about `bytes` each. */
function writeParent(count: number, bytes: number): { path: string; headerEnd: number; ends: number[] } {
  const header = '{"header":true}\n'
  const lines = Array.from(
    { length: count },
    (_, i) => `${JSON.stringify({ seq: i + 1, pad: 'x'.repeat(bytes) })}\n`,
  )
  const ends: number[] = []
  let at = header.length
  for (const line of lines) {
    at += line.length
    ends.push(at)
  }
  const path = join(dir, 'parent.jsonl')
  writeFileSync(path, header + lines.join(''))
  return { path, headerEnd: header.length, ends }
}

async function copyThrough(fs: FileSystem, count: number, pace: CopyOptions) {
  const parent = writeParent(7, 300_000)
  const from = await fs.open(parent.path, 'r')
  const to = await fs.open(join(dir, 'child.jsonl'), 'wx')
  const head = Buffer.from('{"child":1}\n')
  await to.write(head, 0, head.length, 0)
  try {
    const ends = await copyPrefix(
      {
        file: from,
        start: parent.headerEnd,
        end: parent.ends[count - 1] as number,
        ends: parent.ends.slice(0, count),
      },
      to,
      head.length,
      pace,
    )
    return { ends, parent }
  } finally {
    await from.close()
    await to.close()
  }
}

describe('copyPrefix', () => {
  it('copies exactly the prefix after the child header, across slices, and shifts the line ends', async () => {
    const { ends, parent } = await copyThrough(nodeFileSystem, 5, {
      sliceBytes: 256 * 1024,
      writebackBytes: 512 * 1024,
    })
    const child = readFileSync(join(dir, 'child.jsonl'))
    const source = readFileSync(parent.path)
    const head = '{"child":1}\n'.length
    expect(child.subarray(head).equals(source.subarray(parent.headerEnd, parent.ends[4]))).toBe(true)
    expect(ends).toEqual(parent.ends.slice(0, 5).map((end) => end - parent.headerEnd + head))
    expect(child.length).toBe(ends[4])
  })

  it('fails when an fdatasync started beside the copy fails', async () => {
    const faulty = new FaultyFileSystem(nodeFileSystem, { operation: 'datasync', nth: 1, error: 'EIO' })
    await expect(copyThrough(faulty, 7, { writebackBytes: 256 * 1024 })).rejects.toMatchObject({
      code: 'EIO',
    })
    expect(faulty.injected).toBe(1)
  })

  it('fails on a failed write, and on a parent shorter than the range', async () => {
    const faulty = new FaultyFileSystem(nodeFileSystem, { operation: 'write', nth: 3, error: 'ENOSPC' })
    await expect(copyThrough(faulty, 7, { sliceBytes: 256 * 1024 })).rejects.toMatchObject({ code: 'ENOSPC' })
    const parent = writeParent(2, 10)
    const from = await nodeFileSystem.open(parent.path, 'r')
    const to = await nodeFileSystem.open(join(dir, 'short.jsonl'), 'wx')
    await expect(
      copyPrefix(
        { file: from, start: parent.headerEnd, end: (parent.ends[1] as number) + 5, ends: parent.ends },
        to,
        0,
      ),
    ).rejects.toThrow(/parent file ended/)
    await from.close()
    await to.close()
  })
})
