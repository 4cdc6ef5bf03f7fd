import { isUtf8 } from 'node:buffer';

// What is read of a CSV file's bytes before csv-parse sees them.

export const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;

/**
 * Finds, as bytes arrive, where the first line that holds anything ends (a BOM, spaces and blank
 * lines hold nothing): the header, from which the delimiter is decided before parsing starts.
 */
export class FirstLineScan {
  private offset = 0;
  private content = false;
  /** Where that line ends (its line break), counted from the first byte; -1 until found. */
  end = -1;

  foundIn(buffer: Buffer): boolean {
    for (let i = 0; i < buffer.length; i++) {
      const byte = buffer[i];
      const at = this.offset + i;
      if (byte === LF || byte === CR) {
        if (this.content) {
          this.end = at;
          return true;
        }
      } else if (byte !== 0x20 && byte !== 0x09 && !(at < 3 && byte === BOM[at])) {
        this.content = true;
      }
    }
    this.offset += buffer.length;
    return false;
  }
}

/**
 * The delimiter of the file whose header line ends at `end` (-1: the text's last line): the one
 * that splits that line into more fields, a comma on a tie.
 */
export function delimiterOf(text: Buffer, end: number): ',' | ';' {
  const line = contentLine(text, end);
  return fieldCount(line, SEMICOLON) > fieldCount(line, COMMA) ? ';' : ',';
}

/** The line that ends at `end` (or the last line, when -1). */
function contentLine(text: Buffer, end: number): Buffer {
  const before = text.subarray(0, end < 0 ? text.length : end);
  return before.subarray(Math.max(before.lastIndexOf(LF), before.lastIndexOf(CR)) + 1);
}

/** How many fields the header line splits into at `delimiter`: a quoted one does not split. */
function fieldCount(line: Buffer, delimiter: number): number {
  let fields = 1;
  let quoted = false;
  for (const byte of line) {
    if (byte === QUOTE) quoted = !quoted;
    else if (byte === delimiter && !quoted) fields++;
  }
  return fields;
}

/**
 * Whether the bytes so far are UTF-8, checked as they arrive (before csv-parse decodes them): a
 * character cut by a chunk's end is checked with the next chunk.
 */
export class Utf8Check {
  valid = true;
  private tail = Buffer.alloc(0);

  add(chunk: Buffer): void {
    if (!this.valid) return;
    const bytes = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
    const whole = wholeCharacters(bytes);
    // A copy: the source may reuse its chunk's memory.
    this.tail = Buffer.from(bytes.subarray(whole));
    this.valid = isUtf8(bytes.subarray(0, whole));
  }

  end(): void {
    if (this.tail.length > 0) this.valid = false;
  }
}

/** How many of the bytes make whole characters: all, or up to a last one that is cut short. */
function wholeCharacters(bytes: Buffer): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return size > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}
