import { describe, expect, it } from 'vitest'
import { missingKeyNotice } from './key-notice.js'

describe('missingKeyNotice', () => {
  it('says nothing when a key is set or the model is not openai', () => {
    expect(missingKeyNotice('openai', 'https://api.example.com/v1', 'sk-1')).toBeUndefined()
    expect(missingKeyNotice('echo', 'https://api.example.com/v1', undefined)).toBeUndefined()
    expect(missingKeyNotice('script:x.json', undefined, '')).toBeUndefined()
  })

  it('warns for a remote server, without the query, and for openai:NAME too', () => {
    expect(missingKeyNotice('openai:gpt', 'https://api.example.com/v1?api-key=abc', undefined)).toEqual({
      level: 'warn',
      text: 'DSH_API_KEY is not set: requests to https://api.example.com/v1 are sent without an API key, which most hosted servers refuse (set DSH_API_KEY in the environment that starts dsh-acp)',
    })
    expect(missingKeyNotice('openai', 'http://192.168.1.9:8080/v1', '')?.level).toBe('warn')
  })

  it('only informs for a server on this machine', () => {
    for (const url of ['http://localhost:11434/v1', 'http://127.0.0.1:8080/v1', 'http://[::1]:8000/v1']) {
      expect(missingKeyNotice('openai', url, undefined)).toMatchObject({ level: 'info' })
    }
    expect(missingKeyNotice('openai', 'http://localhost:11434/v1', '')?.text).toBe(
      'DSH_API_KEY is empty: requests to http://localhost:11434/v1 are sent without an API key',
    )
  })
})
