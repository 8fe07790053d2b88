import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI } from '../support/agent-process.js'

const dir = mkdtempSync(join(tmpdir(), 'dsh-start-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const INIT =
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}'
const NEW = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"${dir}","mcpServers":[]}}`
const LIST = '{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}}'

/**
 * Runs the built server with `args`, writing each string of `input` as one write (a number waits
 * that many ms), then closing stdin; resolves its stdout lines and exit code.
 */
async function run(args: readonly string[], input: readonly (string | number)[]) {
  const child = spawn(process.execPath, [CLI, '--memory', ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8')
  })
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  for (const piece of input) {
    if (typeof piece === 'number') await new Promise((resolve) => setTimeout(resolve, piece))
    else child.stdin.write(piece)
  }
  child.stdin.end()
  const code = await exited
  return { lines: out.split('\n').filter((line) => line !== ''), code, stderr: err }
}

const answers = (lines: readonly string[]) =>
  lines.map((line) => JSON.parse(line) as { id?: unknown; result?: unknown; error?: { code: number } })

describe('start: the first line is read before the server is built', () => {
  it('answers initialize exactly as the fully built server does (which answers when a transcript is kept)', async () => {
    for (const args of [[], ['--no-fork']]) {
      const early = await run(args, [`${INIT}\n`])
      const built = await run([...args, '--transcript', join(dir, `t-${args.length}.jsonl`)], [`${INIT}\n`])
      expect(early.code).toBe(0)
      expect(early.lines).toHaveLength(1)
      expect(early.lines[0]).toBe(built.lines[0])
    }
    const transcript = readFileSync(join(dir, 't-0.jsonl'), 'utf8')
    expect(transcript).toContain('"method":"initialize"')
  })

  it('loses nothing that follows initialize in the same write, and answers in order', async () => {
    const { lines, code } = await run([], [`${INIT}\n${NEW}\n${LIST}\n`])
    expect(code).toBe(0)
    const replies = answers(lines).filter((m) => m.id !== undefined)
    expect(replies.map((m) => m.id)).toEqual([0, 1, 2])
    expect(replies.every((m) => m.result !== undefined)).toBe(true)
  })

  it('reads an initialize split across writes, and requests written while the server is being built', async () => {
    const { lines, code } = await run(
      [],
      [INIT.slice(0, 30), 30, `${INIT.slice(30)}\n${NEW.slice(0, 20)}`, 5, `${NEW.slice(20)}\n`],
    )
    expect(code).toBe(0)
    expect(
      answers(lines)
        .filter((m) => m.id !== undefined)
        .map((m) => m.id),
    ).toEqual([0, 1])
  })

  it('leaves a first line that is not initialize to the connection, which answers it as always', async () => {
    const early = LIST.replace('"id":2', '"id":"early"')
    const { lines, code } = await run([], [`${early}\nnot json\n${INIT}\n${LIST}\n`])
    expect(code).toBe(0)
    const replies = answers(lines)
    const to = (id: unknown) => replies.filter((m) => m.id === id)
    expect(to('early')).toMatchObject([{ error: { code: -32600 } }])
    expect(to(null)).toMatchObject([{ error: { code: -32700 } }])
    expect(to(0)).toMatchObject([{ result: { protocolVersion: 1 } }])
    expect(to(2)).toMatchObject([{ result: { sessions: [] } }])
  })

  it('a model spec it cannot use fails before anything is answered', async () => {
    const { lines, code, stderr } = await run(['--model', 'nosuch'], [`${INIT}\n`])
    expect(code).toBe(1)
    expect(lines).toEqual([])
    expect(stderr).toContain('unknown model "nosuch"')
  })
})
