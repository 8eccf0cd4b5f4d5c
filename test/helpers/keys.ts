/**
 * API keys for tests, made at run time: no key-shaped literal sits in the repository (a
 * scanner cannot tell a test key from a leaked one), and a test that checks a key never
 * leaks checks a value no other file contains.
 */
import { randomBytes } from 'node:crypto';

/** A fresh key, `hs_test_<label>_<32 hex>`; the label says what the key is for in a failure message. */
export function testKey(label: string): string {
  return `hs_test_${label}_${randomBytes(16).toString('hex')}`;
}
