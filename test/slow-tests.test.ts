import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ISOLATED_TESTS } from './isolated-tests.js'
import { SAMPLED_TESTS, SLOW_TESTS } from './slow-tests.js'

describe('the slow tests npm test leaves to npm run test:full', () => {
  it('each names an existing test file, once (a renamed file would else silently leave the suite)', () => {
    for (const path of SLOW_TESTS) {
      expect(path.endsWith('.test.ts'), path).toBe(true)
      expect(existsSync(path), `${path} is missing: update test/slow-tests.ts`).toBe(true)
    }
    expect(new Set(SLOW_TESTS).size).toBe(SLOW_TESTS.length)
  })

  it('each sampled file exists, once, and is not a slow one (npm test runs its sample)', () => {
    for (const path of SAMPLED_TESTS) {
      expect(existsSync(path), `${path} is missing: update test/slow-tests.ts`).toBe(true)
      expect(SLOW_TESTS.includes(path), path).toBe(false)
    }
    expect(new Set(SAMPLED_TESTS).size).toBe(SAMPLED_TESTS.length)
  })
})

describe('the in-process tests that keep a process of their own', () => {
  it('each names an existing in-process test file, once, outside test/e2e (which is isolated already)', () => {
    for (const path of ISOLATED_TESTS) {
      expect(path.endsWith('.test.ts'), path).toBe(true)
      expect(path.startsWith('test/e2e/'), path).toBe(false)
      expect(existsSync(path), `${path} is missing: update test/isolated-tests.ts`).toBe(true)
    }
    expect(new Set(ISOLATED_TESTS).size).toBe(ISOLATED_TESTS.length)
  })
})
