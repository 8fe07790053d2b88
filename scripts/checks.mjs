// Runs the checks `npm test` starts with (the npm scripts named below) side by side, two at a
// time by default (`DSH_CHECK_JOBS`), each one's output printed whole when it ends, in the order
// they end, with its time. Exits 1 when any failed, after all have ended (every failure is shown).
// Usage: node scripts/checks.mjs [script ...]   (default: lint, lint:layers, lint:unused,
// typecheck, build)
import { spawn } from 'node:child_process'

const DEFAULT = ['typecheck', 'build', 'lint', 'lint:layers', 'lint:unused']
const scripts = process.argv.length > 2 ? process.argv.slice(2) : DEFAULT
const jobs = Math.max(1, Number(process.env.DSH_CHECK_JOBS ?? 2))
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/** Runs `npm run <script>`, its stdout and stderr kept together; resolves with whether it passed. */
function runScript(script) {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    const output = []
    child.stdout.on('data', (chunk) => output.push(chunk))
    child.stderr.on('data', (chunk) => output.push(chunk))
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)))
    child.on('close', (code) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      const verdict = code === 0 ? 'ok' : `FAILED (exit ${code})`
      process.stdout.write(`\n> npm run ${script}: ${verdict} in ${seconds} s\n`)
      process.stdout.write(Buffer.concat(output))
      resolve(code === 0)
    })
  })
}

const queue = [...scripts]
const results = []
async function worker() {
  for (let script = queue.shift(); script !== undefined; script = queue.shift()) {
    results.push({ script, passed: await runScript(script) })
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, scripts.length) }, worker))
const failed = results.filter((r) => !r.passed).map((r) => r.script)
if (failed.length > 0) {
  process.stderr.write(`\nchecks failed: ${failed.join(', ')}\n`)
  process.exitCode = 1
}
