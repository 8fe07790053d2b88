// Writes package.json's version (the one source of the release number) into the ACP Registry
// manifest. Run by `npm version` (the "version" script), so the manifest never names another.
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'))
const path = resolve(root, 'registry/dsh-acp/agent.json')
const manifest = JSON.parse(readFileSync(path, 'utf8'))
manifest.version = pkg.version
manifest.distribution = { npx: { package: `${pkg.name}@${pkg.version}` } }
const text = `${JSON.stringify(manifest, null, 2).replace(/\[\n\s+("[^"\n]*")\n\s+\]/g, '[$1]')}\n`
writeFileSync(path, text)
