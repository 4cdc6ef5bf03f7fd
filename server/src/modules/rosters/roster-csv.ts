import { finished } from 'node:stream/promises';
import type { RosterProblem } from '@tms/contract';
import { CsvError, type Parser, parse } from 'csv-parse';
import { PayloadTooLargeError } from '../../errors/index.js';
import { BOM, delimiterOf, FirstLineScan, Utf8Check } from './roster-csv-bytes.js';
import type { RawRosterRow, RosterFileDraft } from './roster-file-shape.js';
import { type HeaderColumns, matchHeader, rosterProblem } from './roster-header.js';

const LF = 0x0a;
const CR = 0x0d;

export const tooManyRows = (maxRows: number) =>
  new PayloadTooLargeError(`the ${maxRows.toLocaleString('en-US')}-row limit`);

/** Reads a CSV file into `file` as its bytes are written, with csv-parse's streaming parser. */
export class RosterCsv {
  private parser: Parser | undefined;
  private readonly head: Buffer[] = [];
  private readonly firstLine = new FirstLineScan();
  private header: HeaderColumns | undefined;
  private headerSpelling: string[] = [];
  /** Records are numbered by the line they begin on, as a text editor shows the file. */
  private nextRow = 1;
  private stopped = false;
  private readonly utf8 = new Utf8Check();
  private delimiterName = 'comma';

  constructor(
    readonly file: RosterFileDraft,
    private readonly maxRows: number,
  ) {}

  /** False once nothing more of the file can be read. */
  async write(buffer: Buffer): Promise<boolean> {
    // After its first error csv-parse calls no more write callbacks: nothing may be written then.
    if (this.stopped) return false;
    if (this.parser) return this.feed(buffer);
    this.head.push(buffer);
    return this.firstLine.foundIn(buffer) ? this.start() : true;
  }

  async end(): Promise<void> {
    if (this.stopped || (!this.parser && !(await this.start()))) return;
    const parser = this.parser as Parser;
    this.utf8.end();
    parser.end();
    const error = await finished(parser, { readable: false }).then(
      () => undefined,
      (thrown) => thrown,
    );
    // The last record, when the file does not end with a line break, comes as the parser ends.
    this.drain();
    if (error) this.fail(error);
  }

  close(): void {
    this.parser?.destroy();
  }

  /** The delimiter is the one that splits the header line into more fields: comma on a tie. */
  private async start(): Promise<boolean> {
    let text = Buffer.concat(this.head);
    let lineEnd = this.firstLine.end;
    // Stripped here: csv-parse's `bom` would also take a UTF-16 BOM and read UTF-16. UTF-8 only.
    if (text.subarray(0, 3).equals(BOM)) {
      text = text.subarray(3);
      lineEnd = lineEnd < 0 ? -1 : lineEnd - 3;
    }
    const delimiter = delimiterOf(text, lineEnd);
    if (delimiter === ';') this.delimiterName = 'semicolon';
    this.parser = parse({
      delimiter,
      record_delimiter: ['\r\n', '\n', '\r'],
      bom: false,
      relax_column_count: true,
    });
    // Errors arrive through the write and end callbacks; this keeps them from being thrown twice.
    this.parser.on('error', () => {});
    return text.length === 0 ? true : this.feed(text);
  }

  private async feed(buffer: Buffer): Promise<boolean> {
    const parser = this.parser as Parser;
    this.utf8.add(buffer);
    const written = new Promise<Error | null | undefined>((resolve) => parser.write(buffer, resolve));
    // csv-parse parses a chunk as it is written: its records (up to an error) are ready to read now.
    this.drain();
    const error = await written;
    if (error) this.fail(error);
    return !this.stopped;
  }

  private drain(): void {
    const parser = this.parser as Parser;
    for (let record = parser.read(); record !== null; record = parser.read()) this.onRecord(record);
  }

  private onRecord(fields: string[]): void {
    if (this.stopped) return;
    const row = this.nextRow;
    const texts = new Array<string>(fields.length);
    let lineBreaks = 0;
    let blank = true;
    let invalidAt = -1;
    for (let i = 0; i < fields.length; i++) {
      const raw = fields[i] as string;
      // Bytes that are not UTF-8 are decoded as U+FFFD: once the file has some, a U+FFFD marks them.
      if (invalidAt < 0 && !this.utf8.valid && raw.includes('\uFFFD')) invalidAt = i;
      if (raw.includes('\n') || raw.includes('\r')) lineBreaks += countLineBreaks(raw);
      const text = raw.trim();
      if (text !== '') blank = false;
      texts[i] = text;
    }
    this.nextRow = row + 1 + lineBreaks;
    // Blank lines (and rows of empty cells, as spreadsheets save them) are rows with nothing to do.
    if (blank) return;
    if (this.header === undefined) this.readHeader(row, texts, invalidAt);
    else this.readRow(this.header, row, texts, invalidAt);
  }

  private readHeader(row: number, names: string[], invalidAt: number): void {
    if (invalidAt >= 0) {
      this.file.errors.push(rosterProblem(row, null, 'INVALID_UTF8', NOT_UTF8));
    } else {
      this.header = matchHeader(names, row, this.file);
      this.headerSpelling = names;
    }
    // A header that cannot be trusted makes every row's cells doubtful: nothing more is read.
    if (this.file.errors.length > 0) this.stopped = true;
  }

  private readRow(header: HeaderColumns, row: number, texts: string[], invalidAt: number): void {
    const file = this.file;
    file.dataRows++;
    if (file.dataRows > this.maxRows) throw tooManyRows(this.maxRows);
    let readable = true;
    if (texts.length !== header.length) {
      const message = `this row has ${cellCount(texts.length)}, the header ${header.length}: quote a cell that holds a ${this.delimiterName}`;
      file.errors.push(rosterProblem(row, null, 'COLUMN_COUNT', message));
      readable = false;
    }
    if (invalidAt >= 0) {
      file.errors.push(rosterProblem(row, this.headerSpelling[invalidAt] ?? null, 'INVALID_UTF8', NOT_UTF8));
      readable = false;
    }
    if (!readable) {
      file.invalidRows++;
      return;
    }
    const cells: RawRosterRow['cells'] = {};
    for (let i = 0; i < header.length; i++) {
      const column = header[i];
      if (column !== undefined) cells[column] = texts[i];
    }
    file.rows.push({ row, cells });
  }

  /** csv-parse stops at its first error: the row is the record it was reading, which began at nextRow. */
  private fail(error: unknown): void {
    if (!(error instanceof CsvError)) throw error;
    this.stopped = true;
    const index = typeof error.column === 'number' ? error.column : -1;
    const column = this.header ? (this.headerSpelling[index] ?? null) : null;
    this.file.errors.push(csvProblem(error, this.nextRow, column));
    if (this.header) {
      this.file.dataRows++;
      this.file.invalidRows++;
    }
  }
}

const cellCount = (count: number) => (count === 1 ? '1 cell' : `${count} cells`);
const NOT_UTF8 = 'this row has bytes that are not UTF-8: save the file as "CSV UTF-8"';
const QUOTES = 'write a quote inside a quoted cell as two ("")';

function csvProblem(error: CsvError, row: number, column: string | null): RosterProblem {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return rosterProblem(
        row,
        column,
        'UNCLOSED_QUOTE',
        `a quote opened in this row is never closed: ${QUOTES}`,
      );
    case 'CSV_INVALID_CLOSING_QUOTE':
      return rosterProblem(row, column, 'MALFORMED_CSV', `text follows a closing quote: ${QUOTES}`);
    case 'INVALID_OPENING_QUOTE':
      return rosterProblem(
        row,
        column,
        'MALFORMED_CSV',
        `a quote inside an unquoted cell: quote the cell and ${QUOTES}`,
      );
    default:
      return rosterProblem(row, column, 'MALFORMED_CSV', `this row is not valid CSV (${error.message})`);
  }
}

/** A line break inside a quoted cell: CRLF, LF or a lone CR, each one line. */
function countLineBreaks(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === LF || (code === CR && text.charCodeAt(i + 1) !== LF)) count++;
  }
  return count;
}
