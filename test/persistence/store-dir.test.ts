import { describe, expect, it } from 'vitest'
import { resolveStoreDir } from '../../src/persistence/index.js'

describe('resolveStoreDir', () => {
  it('uses $DSH_HOME/sessions, else the XDG data dir, else ~/.local/share', () => {
    expect(resolveStoreDir({ DSH_HOME: '/d' }, '/home/u')).toBe('/d/sessions')
    expect(resolveStoreDir({ DSH_HOME: '/d', XDG_DATA_HOME: '/x' }, '/home/u')).toBe('/d/sessions')
    expect(resolveStoreDir({ XDG_DATA_HOME: '/x' }, '/home/u')).toBe('/x/dsh-acp/sessions')
    expect(resolveStoreDir({}, '/home/u')).toBe('/home/u/.local/share/dsh-acp/sessions')
    expect(resolveStoreDir({ DSH_HOME: '', XDG_DATA_HOME: 'relative' }, '/home/u')).toBe(
      '/home/u/.local/share/dsh-acp/sessions',
    )
  })
})
