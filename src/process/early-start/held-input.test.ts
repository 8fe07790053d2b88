import { PassThrough, type Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { HeldInput } from './held-input.js'

/** Everything `stream` yields until it ends, after the reader attached and resumed it. */
function readAll(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8')
    })
    stream.on('end', () => resolve(text))
    stream.on('error', reject)
    stream.resume()
  })
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('HeldInput', () => {
  it('gives the first line, then everything after it in order, including what arrived meanwhile', async () => {
    const input = new PassThrough()
    const held = new HeldInput(input, 1000)
    input.write('{"a":')
    await tick()
    input.write('1}\nsecond\nthi')
    expect((await held.firstLine)?.toString()).toBe('{"a":1}')
    input.write('rd\n')
    input.end('fourth')
    await tick()
    expect(await readAll(held.release(true))).toBe('second\nthird\nfourth')
  })

  it('keeps the first line where it was when a chunk with another newline arrives after it', async () => {
    const input = new PassThrough()
    const held = new HeldInput(input, 1000)
    input.write('one\n')
    expect((await held.firstLine)?.toString()).toBe('one')
    input.emit('data', Buffer.from('two\n'))
    const rest = held.release(true)
    input.end('three\n')
    expect(await readAll(rest)).toBe('two\nthree\n')
  })

  it('gives everything back, the first line included, when it was not answered', async () => {
    const input = new PassThrough()
    const held = new HeldInput(input, 1000)
    input.write('one\ntwo\n')
    expect((await held.firstLine)?.toString()).toBe('one')
    const rest = held.release(false)
    input.end('three\n')
    expect(await readAll(rest)).toBe('one\ntwo\nthree\n')
  })

  it('has no first line when the input ends before a newline, and still gives back what it read', async () => {
    const input = new PassThrough()
    const held = new HeldInput(input, 1000)
    input.end('no newline')
    expect(await held.firstLine).toBeUndefined()
    expect(() => held.release(true)).toThrow(/no first line/)
    expect(await readAll(held.release(false))).toBe('no newline')
  })

  it('has no first line when it grows past the limit; nothing is lost', async () => {
    const input = new PassThrough()
    const held = new HeldInput(input, 8)
    input.write('0123456789')
    expect(await held.firstLine).toBeUndefined()
    const rest = held.release(false)
    input.end('abc\nnext\n')
    expect(await readAll(rest)).toBe('0123456789abc\nnext\n')
    const long = new PassThrough()
    const heldLong = new HeldInput(long, 8)
    long.write('0123456789\nshort\n')
    expect(await heldLong.firstLine).toBeUndefined()
    long.end()
    expect(await readAll(heldLong.release(false))).toBe('0123456789\nshort\n')
  })

  it('ends with nothing when the input ended with exactly the first line', async () => {
    const input = new PassThrough()
    const held = new HeldInput(input, 1000)
    input.end('only\n')
    expect((await held.firstLine)?.toString()).toBe('only')
    await tick()
    expect(await readAll(held.release(true))).toBe('')
  })
})
