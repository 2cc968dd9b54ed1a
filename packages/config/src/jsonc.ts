import { type ParseError, parse as parseJsonc, printParseErrorCode } from 'jsonc-parser';
import type { Diagnostic } from './diagnostics.js';

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

const describe: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  PropertyNameExpected: 'expected a property name',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'unexpected content after the end',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfComment: 'unterminated comment',
};

/**
 * Parses JSON with comments and trailing commas (settings files are written by people).
 * Returns the value, or a diagnostic with line and column for the first syntax error.
 */
export function parseJsoncText(
  text: string,
  source: string,
): { value: unknown; error?: undefined } | { value?: undefined; error: Diagnostic } {
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const code = printParseErrorCode(first.error);
    return {
      error: {
        severity: 'error',
        source,
        path: '',
        message: `not valid JSON: ${describe[code] ?? code}`,
        ...lineColumn(text, first.offset),
      },
    };
  }
  return { value };
}
