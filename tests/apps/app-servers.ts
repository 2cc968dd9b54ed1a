import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The three MCP App servers from npm (dev dependencies of tests/, exact versions), over
 * stdio. pdf is given a local PDF written here, so it fetches nothing at run time.
 */
const entry = (pkg: string) =>
  fileURLToPath(new URL(`../node_modules/${pkg}/dist/index.js`, import.meta.url));

/** A one-page PDF whose text is `text` (ASCII, no parentheses), offsets computed. */
export function tinyPdf(text: string): Buffer {
  const stream = `BT /F1 24 Tf 72 700 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export interface AppServers {
  mcpServers: Record<string, { command: string; args: string[] }>;
  pdfFile: string;
  cleanup(): void;
}

export function appServers(): AppServers {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-apps-'));
  const pdfFile = path.join(dir, 'hello.pdf');
  writeFileSync(pdfFile, tinyPdf('Hello from mcpkit'));
  return {
    mcpServers: {
      pdf: {
        command: process.execPath,
        args: [entry('@modelcontextprotocol/server-pdf'), '--stdio', pdfFile],
      },
      basic: {
        command: process.execPath,
        args: [entry('@modelcontextprotocol/server-basic-vanillajs'), '--stdio'],
      },
      monitor: {
        command: process.execPath,
        args: [entry('@modelcontextprotocol/server-system-monitor'), '--stdio'],
      },
    },
    pdfFile,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
