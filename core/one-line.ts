/** One line, whatever a file name, a bundle or a report holds: controls (an escape sequence, a line break) as `\uXXXX`. */
export function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
