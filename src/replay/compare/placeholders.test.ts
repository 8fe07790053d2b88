import { describe, expect, it } from 'vitest'
import { parseToolCommandLine, UsageError } from '../command-line.js'
import { fillPlaceholders, parsePlaceholder, placeholderRules } from './placeholders.js'

const work = { name: 'work', value: '/tmp/run-1' }
const store = { name: 'store', value: '/tmp/run-1/store' }

describe('replay placeholders (--set NAME=VALUE)', () => {
  it('fills <NAME> in every string of a client message, keys and other values untouched', () => {
    const msg = { params: { cwd: '<work>/project', list: ['<store>/a', 3, null], '<work>': '<other>' } }
    expect(fillPlaceholders(msg, [work, store])).toEqual({
      params: { cwd: '/tmp/run-1/project', list: ['/tmp/run-1/store/a', 3, null], '<work>': '<other>' },
    })
  })

  it('compares a value as <NAME>, the longest value first', () => {
    const [first, second] = placeholderRules([work, store])
    const apply = (value: unknown) => second?.apply(first?.apply(value, undefined, 'out'), undefined, 'out')
    expect(apply({ result: { paths: ['/tmp/run-1/store/x', '/tmp/run-1/project', '/tmp/run-10'] } })).toEqual(
      {
        result: { paths: ['<store>/x', '<work>/project', '<work>0'] },
      },
    )
  })

  it('parses NAME=VALUE and refuses what is not one', () => {
    expect(parsePlaceholder('work=/a=b')).toEqual({ name: 'work', value: '/a=b' })
    expect(parsePlaceholder('work')).toHaveProperty('problem')
    expect(parsePlaceholder('Work=/a')).toHaveProperty('problem')
    expect(parsePlaceholder('work=')).toHaveProperty('problem')
    const line = parseToolCommandLine(['replay', '--set', 'a=/x', '--set=b-2=/y', 't.jsonl', 'agent'])
    expect(line).toMatchObject({
      placeholders: [
        { name: 'a', value: '/x' },
        { name: 'b-2', value: '/y' },
      ],
    })
    expect(() => parseToolCommandLine(['replay', '--set', 'a=/x', '--set', 'a=/y', 't', 'agent'])).toThrow(
      UsageError,
    )
    expect(() => parseToolCommandLine(['replay', '--set', '=/x', 't', 'agent'])).toThrow(/--set: the name/)
  })
})
