/**
 * The search tools' pattern compilers, one module the tools import on their first run: they carry
 * the regular expression engine (re2js, about 270 KB), which a server that never searches need not
 * load at start.
 */
export { compileGlob } from './glob.js'
export { compileTextPattern } from './text-pattern.js'
