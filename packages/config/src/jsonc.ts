import { type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { type Diagnostic, jsonPath } from './diagnostics.js';

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
 * Builds the value of a parse tree. Objects have no prototype, so that a key such as
 * `__proto__` or `constructor` is an ordinary own key (never a prototype change, never
 * an inherited value). A repeated key keeps its last value, as JSON.parse does, and is
 * reported.
 */
function build(
  node: Node,
  text: string,
  source: string,
  at: Array<string | number>,
  duplicates: Diagnostic[],
): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = Object.create(null);
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (!keyNode || typeof keyNode.value !== 'string') continue;
        const key = keyNode.value;
        if (Object.hasOwn(out, key)) {
          duplicates.push({
            severity: 'warning',
            source,
            path: jsonPath([...at, key]),
            message: `the key "${key}" appears more than once; only the last one counts: remove the others`,
            ...lineColumn(text, keyNode.offset),
          });
        }
        out[key] = valueNode ? build(valueNode, text, source, [...at, key], duplicates) : undefined;
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map((child, i) =>
        build(child, text, source, [...at, i], duplicates),
      );
    default:
      return node.value;
  }
}

/**
 * Parses JSON with comments and trailing commas (settings files are written by people).
 * Returns the value, or a diagnostic with line and column for the first syntax error.
 * Objects in the value have a null prototype; `duplicates` has a warning for each repeated key.
 */
export function parseJsoncText(
  text: string,
  source: string,
):
  | { value: unknown; duplicates: Diagnostic[]; error?: undefined }
  | { value?: undefined; duplicates?: undefined; error: Diagnostic } {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
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
  const duplicates: Diagnostic[] = [];
  const value = tree ? build(tree, text, source, [], duplicates) : undefined;
  return { value, duplicates };
}
