import type { ToolCallContent } from '../../types.js'
import { ToolFailure, type ToolPreview } from '../tool.js'

/**
 * Largest change (old plus new text, UTF-8 bytes) shown as a diff before the user approves it.
 * Past it the question says how large the change is instead, so a permission request stays a
 * message an editor can take (a file itself may be up to 4 MiB).
 */
export const DIFF_PREVIEW_MAX_BYTES = 512 * 1024

/**
 * The preview of replacing `oldText` (null: the file does not exist) with `newText` at the real
 * path `target`: an ACP `diff` (no `oldText` for a new file), or past {@link DIFF_PREVIEW_MAX_BYTES}
 * a text saying the diff is not shown and why. Its basis is `oldText`, which the call's run must
 * find unchanged.
 */
export function diffPreview(
  target: string,
  oldText: string | null,
  newText: string,
  line?: number,
): ToolPreview {
  const oldBytes = oldText === null ? 0 : Buffer.byteLength(oldText)
  const newBytes = Buffer.byteLength(newText)
  const content: ToolCallContent =
    oldBytes + newBytes <= DIFF_PREVIEW_MAX_BYTES
      ? { type: 'diff', path: target, ...(oldText !== null && { oldText }), newText }
      : {
          type: 'content',
          content: {
            type: 'text',
            text:
              `The diff of ${target} is not shown: the change is ${oldBytes + newBytes} bytes ` +
              `(${oldText === null ? 'a new file' : `${oldBytes} bytes now`}, ${newBytes} bytes after), ` +
              `more than the ${DIFF_PREVIEW_MAX_BYTES} shown before approval.`,
          },
        }
  return {
    content: [content],
    locations: [{ path: target, ...(line !== undefined && { line }) }],
    basis: oldText,
  }
}

/** Refuses when the file's text is no longer what the user was shown (the preview's basis). */
export function assertAsPreviewed(
  text: string | null,
  preview: ToolPreview | undefined,
  requested: string,
): void {
  if (preview === undefined || preview.basis === undefined || preview.basis === text) return
  throw new ToolFailure(
    `${requested} changed after the change was shown for approval; read it again; nothing was written`,
  )
}
