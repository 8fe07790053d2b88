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

describe('HeldInput.nextLine', () => {
  it('gives the second line, keeps it for the reader, and gives everything back in order', async () => {
    const input = new PassThrough()
    const held = new HeldInput(input, 1000)
    input.write('one\ntw')
    expect((await held.firstLine)?.toString()).toBe('one')
    const next = held.nextLine(60_000)
    input.write('o\nthree\n')
    expect((await next)?.toString()).toBe('two')
    const rest = held.release(true)
    input.end('four')
    expect(await readAll(rest)).toBe('two\nthree\nfour')
  })

  it('gives a second line that arrived with the first at once', async () => {
    const input = new PassThrough()
    const held = new HeldInput(input, 1000)
    input.write('one\ntwo\n')
    expect((await held.firstLine)?.toString()).toBe('one')
    expect((await held.nextLine(60_000))?.toString()).toBe('two')
    expect(await held.nextLine(60_000)).toBeUndefined()
    input.end()
    expect(await readAll(held.release(false))).toBe('one\ntwo\n')
  })

  it('gives undefined when no line comes in time, when the input ends, or when the line is too long', async () => {
    const quiet = new PassThrough()
    const waiting = new HeldInput(quiet, 1000)
    quiet.write('one\n')
    await waiting.firstLine
    expect(await waiting.nextLine(1)).toBeUndefined()
    quiet.end('two\n')
    expect(await readAll(waiting.release(true))).toBe('two\n')

    const ending = new PassThrough()
    const ended = new HeldInput(ending, 1000)
    ending.write('one\ntw')
    await ended.firstLine
    const next = ended.nextLine(60_000)
    ending.end()
    expect(await next).toBeUndefined()

    const long = new PassThrough()
    const tooLong = new HeldInput(long, 8)
    long.write('one\n0123456789')
    await tooLong.firstLine
    expect(await tooLong.nextLine(60_000)).toBeUndefined()
    long.end('\n')
    expect(await readAll(tooLong.release(true))).toBe('0123456789\n')
  })

  it('gives up on a second line longer than asked for as soon as it is, and keeps it all for the reader', async () => {
    const input = new PassThrough()
    const held = new HeldInput(input, 1 << 20)
    input.write('one\n')
    await held.firstLine
    const next = held.nextLine(60_000, 100)
    for (let i = 0; i < 5; i++) input.write('x'.repeat(30))
    expect(await next).toBeUndefined()
    const rest = held.release(true)
    input.end('y\n')
    expect(await readAll(rest)).toBe(`${'x'.repeat(150)}y\n`)
  })

  it('settles a pending wait when the input is released', async () => {
    const input = new PassThrough()
    const held = new HeldInput(input, 1000)
    input.write('one\n')
    await held.firstLine
    const next = held.nextLine(60_000)
    const rest = held.release(true)
    expect(await next).toBeUndefined()
    input.end('two\n')
    expect(await readAll(rest)).toBe('two\n')
  })
})
