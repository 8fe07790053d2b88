import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { writeAllFully } from './file-io.js'
import { nodeFileSystem, type OpenFile } from './file-system.js'

const dir = mkdtempSync(join(tmpdir(), 'dsh-file-io-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** `file`, whose `writev` writes at most the next of `limits` bytes per call (a disk short of space). */
function shortWriting(file: OpenFile, limits: number[]): OpenFile {
  let call = 0
  return {
    ...file,
    writev: async (buffers, position) => {
      let left = limits[call++ % limits.length] as number
      const prefix: Uint8Array[] = []
      for (const buffer of buffers) {
        if (left === 0) break
        const part = buffer.subarray(0, Math.min(left, buffer.length))
        prefix.push(part)
        left -= part.length
      }
      return file.writev(prefix, position)
    },
    write: (...args) => file.write(...args),
  }
}

describe('writeAllFully', () => {
  it('writes every piece, in order, at the position, however short each write is', async () => {
    let n = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 300 }), { minLength: 0, maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 5 }),
        fc.nat({ max: 64 }),
        async (pieces, limits, at) => {
          const path = join(dir, `f${n++}`)
          const file = await nodeFileSystem.open(path, 'wx', 0o600)
          try {
            await file.write(Buffer.alloc(at, 0x2e), 0, at, 0)
            await writeAllFully(shortWriting(file, limits), pieces, at)
          } finally {
            await file.close()
          }
          const expected = Buffer.concat([Buffer.alloc(at, 0x2e), ...pieces])
          expect(readFileSync(path).equals(expected)).toBe(true)
        },
      ),
      { numRuns: 80 },
    )
  })

  it('throws when a write writes nothing', async () => {
    const file = await nodeFileSystem.open(join(dir, 'zero'), 'wx', 0o600)
    try {
      const stuck: OpenFile = { ...file, writev: async () => 0, write: async () => 0 }
      await expect(writeAllFully(stuck, [Buffer.from('ab'), Buffer.from('c')], 0)).rejects.toThrow(
        /short write/,
      )
    } finally {
      await file.close()
    }
  })
})
