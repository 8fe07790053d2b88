import { describe, expect, it } from 'vitest'
import { commandEnvironment } from './command-env.js'

const source = {
  PATH: '/usr/bin',
  HOME: '/home/me',
  LC_ALL: 'C.UTF-8',
  EDITOR: 'vi',
  DEEPSEEK_API_KEY: 'sk-1',
  GITHUB_TOKEN: 'ghp-1',
  DSH_HOME: '/data',
  DB_PASSWORD: 'pw',
}

describe('commandEnvironment (issue 34 #7)', () => {
  it('keeps the allow-list and the locale, nothing else by default', () => {
    expect(commandEnvironment({}, source)).toEqual({ PATH: '/usr/bin', HOME: '/home/me', LC_ALL: 'C.UTF-8' })
  })

  it('passes what the user names, a secret-looking name too, but never a denied one or an agent variable', () => {
    const env = commandEnvironment(
      { pass: ['EDITOR', 'GITHUB_TOKEN', 'DEEPSEEK_API_KEY', 'DSH_HOME'], deny: ['DEEPSEEK_API_KEY'] },
      source,
    )
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/me',
      LC_ALL: 'C.UTF-8',
      EDITOR: 'vi',
      GITHUB_TOKEN: 'ghp-1',
    })
  })

  it('withholds an allow-listed name that a configuration denies', () => {
    expect(commandEnvironment({ deny: ['HOME'] }, source)).not.toHaveProperty('HOME')
  })
})
