import stripAnsi from "strip-ansi";

// Cursor-forward and cursor-column moves stand between words a TUI places on the same row
// ("Session ID:" … value); a space keeps the two apart once the escapes are gone.
const HORIZONTAL_MOVE = /\x1b\[[0-9]*[CG]/g;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;
// Every step below starts at one of these: an escape (ESC, or the 8-bit CSI strip-ansi also
// takes), a backspace or another control character.
const ANYTHING_TO_CLEAN = /[\x00-\x1f\x7f\x9b]/;

/** Terminal line → plain text: escapes stripped, backspaces applied, controls removed. */
export function cleanText(raw: string): string {
  // Most lines of a flood have nothing to clean: one scan instead of four regex passes
  // (the control-character replace alone was 8 % of `run`'s capture time, issue 44).
  if (!ANYTHING_TO_CLEAN.test(raw)) return raw.trimEnd();
  let text = stripAnsi(raw.replace(HORIZONTAL_MOVE, " "));
  if (text.includes("\b")) text = applyBackspaces(text);
  return text.replace(CONTROL, "").trimEnd();
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
