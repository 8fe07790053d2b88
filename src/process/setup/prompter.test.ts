import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { Prompter } from './prompter.js'

describe('the set-up prompter', () => {
  it('confirm: an answer that is neither yes nor no is asked again, saying why', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    let said = ''
    output.on('data', (chunk: Buffer) => {
      said += chunk.toString()
    })
    const prompter = new Prompter(input, output)
    input.write('maybe\ny\n')
    expect(await prompter.confirm('Save it?', false)).toBe(true)
    prompter.close()
    expect(said).toBe(
      'Save it? (y/n) [n]: "maybe" is neither yes nor no: answer y or n (Enter: n).\nSave it? (y/n) [n]: ',
    )
  })
})
