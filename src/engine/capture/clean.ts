import stripAnsi from "strip-ansi";

// Cursor-forward and cursor-column moves stand between words a TUI places on the same row
// ("Session ID:" … value); a space keeps the two apart once the escapes are gone.
const HORIZONTAL_MOVE = /\x1b\[[0-9]*[CG]/g;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;

/** Terminal line → plain text: escapes stripped, backspaces applied, controls removed. */
// Most lines of a stream are plain text or JSON: nothing to strip.
const NEEDS_CLEANING = /[\x00-\x08\x0b-\x1f\x7f\x9b]/;

export function cleanText(raw: string): string {
  if (!NEEDS_CLEANING.test(raw)) return raw.trimEnd();
  let text = stripAnsi(raw.replace(HORIZONTAL_MOVE, " "));
  if (text.includes("\b")) text = applyBackspaces(text);
  return text.replace(CONTROL, "").trimEnd();
}

// NEEDS_CLEANING for raw UTF-8 bytes (a latin1 string), where a C1 control is \xc2 and 80-9f.
// The first test is one character class, the fastest search there is; \xc2 leads a C1 control
// only when the next byte is 80-9f, which the second test checks.
export const MAYBE_CONTROL_BYTES = /[^\t\x20-\x7e\x80-\xc1\xc3-\xff]/;
const CONTROL_BYTES = /[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]/;

/** Whether cleanText could change more than the end of a line, from its undecoded bytes. */
export function bytesNeedCleaning(bytes: string): boolean {
  return MAYBE_CONTROL_BYTES.test(bytes) && CONTROL_BYTES.test(bytes);
}

// agentapi types `x\b` before every message, and shells echo erased characters as `\b \b`.
function applyBackspaces(text: string): string {
  const out: string[] = [];
  for (const ch of text) {
    if (ch === "\b") out.pop();
    else out.push(ch);
  }
  return out.join("");
}
