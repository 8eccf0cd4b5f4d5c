/**
 * "Text" means the bytes can travel inside a JSON string unchanged: valid UTF-8 and no
 * NUL byte. A BOM is valid UTF-8 and is kept as part of the content; CRLF is text.
 * An empty file is text.
 *
 * Whoever turns text bytes into a string must use Buffer#toString('utf8') (keeps a BOM),
 * not a default TextDecoder (drops it), or the hash of what lands remotely would differ.
 */
import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';

export function isTextBuffer(data: Uint8Array): boolean {
  return data.indexOf(0) === -1 && isUtf8(data);
}

/**
 * Decides the same question for a file read in chunks: a multi-byte sequence may span
 * two chunks, which a fatal TextDecoder in stream mode carries over.
 */
export class TextSniffer {
  private decoder: TextDecoder | null = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  private text = true;

  push(chunk: Uint8Array): void {
    if (!this.text || this.decoder === null) return;
    if (chunk.indexOf(0) !== -1) return this.fail();
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      this.fail();
    }
  }

  /** The verdict; a sequence cut off by end of file makes the file binary. */
  finish(): boolean {
    if (this.text && this.decoder !== null) {
      try {
        this.decoder.decode();
      } catch {
        this.text = false;
      }
    }
    this.decoder = null;
    return this.text;
  }

  private fail(): void {
    this.text = false;
    this.decoder = null;
  }
}
