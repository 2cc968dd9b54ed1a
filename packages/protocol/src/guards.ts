import type {
  BlobResourceContents,
  ResourceContents,
  TextResourceContents,
} from './schemas/content.js';

/** Narrows resource contents to the text form (`'text' in c` cannot, as objects are open). */
export function isTextResourceContents(
  contents: ResourceContents,
): contents is TextResourceContents {
  return typeof (contents as { text?: unknown }).text === 'string';
}

/** Narrows resource contents to the binary (base64 `blob`) form. */
export function isBlobResourceContents(
  contents: ResourceContents,
): contents is BlobResourceContents {
  return typeof (contents as { blob?: unknown }).blob === 'string';
}
