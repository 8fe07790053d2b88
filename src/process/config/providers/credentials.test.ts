import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { configProblemsNotice, noticeAsMessage } from '../problems.js'
import { readCredentials, removeKeys, storeKey } from './credentials.js'

const fresh = () => join(mkdtempSync(join(tmpdir(), 'dsh-acp-cred-')), 'dsh-acp', 'credentials.json')
const mode = (file: string) => statSync(file).mode & 0o777

describe('credentials.json', () => {
  it('is written with mode 0600 (in a 0700 directory), whatever the umask, and keeps the other keys', () => {
    const file = fresh()
    const umask = process.umask(0)
    try {
      storeKey(file, 'deepseek', 'sk-one')
      storeKey(file, 'openai', 'sk-two')
      storeKey(file, 'deepseek', 'sk-three')
    } finally {
      process.umask(umask)
    }
    expect(mode(file)).toBe(0o600)
    expect(mode(join(file, '..'))).toBe(0o700)
    expect(readCredentials(file)).toEqual({ keys: { deepseek: 'sk-three', openai: 'sk-two' }, problems: [] })
  })

  it('removes one key or all of them (then the file)', () => {
    const file = fresh()
    storeKey(file, 'a', 'k1')
    storeKey(file, 'b', 'k2')
    expect(removeKeys(file, 'a')).toEqual(['a'])
    expect(mode(file)).toBe(0o600)
    expect(removeKeys(file)).toEqual(['b'])
    expect(() => statSync(file)).toThrow(/ENOENT/)
    expect(removeKeys(file)).toEqual([])
  })

  it('says when others may read it or it is malformed, never showing a key', () => {
    const file = fresh()
    storeKey(file, 'a', 'sk-secret-value')
    chmodSync(file, 0o644)
    const open = readCredentials(file)
    expect(open.keys).toEqual({ a: 'sk-secret-value' })
    expect(open.problems[0]?.message).toBe(`is readable by other users: run chmod 600 ${file}`)
    writeFileSync(file, '{"keys": {"a": "sk-secret-value"')
    const broken = readCredentials(file)
    expect(broken.keys).toEqual({})
    expect(JSON.stringify(broken.problems)).not.toContain('sk-secret')
    expect(readFileSync(file, 'utf8')).toContain('sk-secret')
  })
})

describe('the notice for configuration problems (for the notices channel)', () => {
  it('is an error naming the file, with each problem and what to do; none without problems', () => {
    expect(configProblemsNotice([])).toBeUndefined()
    const notice = configProblemsNotice([
      { file: '/h/config.json', pointer: '/limits/maxSteps', message: 'expected an integer' },
      { file: '/h/config.json', pointer: '', message: 'is not valid JSON' },
    ])
    expect(notice).toEqual({
      severity: 'error',
      title: 'dsh-acp ignored its configuration file /h/config.json',
      description: expect.stringMatching(
        /^\/h\/config\.json at \/limits\/maxSteps: expected an integer\n\/h\/config\.json: is not valid JSON\nFix the file/,
      ),
    })
    expect(noticeAsMessage(notice as NonNullable<typeof notice>)).toMatch(/^\*\*dsh-acp ignored/)
  })
})
