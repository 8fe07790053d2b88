import { describe, expect, it } from 'vitest'
import { parseCli } from './cli-args.js'
import { privatePaths } from './private-paths.js'

describe('--sandbox and --sandbox-network', () => {
  it('default to a sandbox where one works, network on', () => {
    expect(parseCli([])).toMatchObject({ sandbox: 'auto', sandboxNetwork: true })
    expect(parseCli(['--sandbox', 'bwrap', '--sandbox-network', 'off'])).toMatchObject({
      sandbox: 'bwrap',
      sandboxNetwork: false,
    })
    expect(parseCli(['--sandbox=off'])).toMatchObject({ sandbox: 'off' })
  })

  it('refuse other values, naming the choices', () => {
    expect(() => parseCli(['--sandbox', 'docker'])).toThrow('--sandbox must be one of auto, bwrap, off')
    expect(() => parseCli(['--sandbox-network', 'yes'])).toThrow('--sandbox-network must be on or off')
  })
})

describe('the paths a sandboxed command must not see', () => {
  it('are the store, its data home when default, DSH_HOME, the config directory and the transcript', () => {
    const env = { DSH_HOME: '/data/dsh', XDG_CONFIG_HOME: '/cfg' }
    expect(
      privatePaths(
        { storeDir: '/data/dsh/sessions', defaultStore: true, transcript: 'rel/t.jsonl' },
        env,
        '/home/u',
      ),
    ).toEqual(['/data/dsh/sessions', '/data/dsh', '/cfg/dsh-acp', `${process.cwd()}/rel/t.jsonl`])
    expect(privatePaths({ storeDir: null, defaultStore: false }, {}, '/home/u')).toEqual([
      '/home/u/.config/dsh-acp',
    ])
    expect(
      privatePaths({ storeDir: '/s', defaultStore: false }, { XDG_CONFIG_HOME: 'relative' }, '/h'),
    ).toEqual(['/s', '/h/.config/dsh-acp'])
  })
})
