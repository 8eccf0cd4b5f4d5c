import { describe, expect, it } from 'vitest';
import { configDigest } from '../../src/config/config-digest.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { tempDir, writeTree } from '../helpers/tree.js';

describe('configDigest', () => {
  it('is the same for the same configuration however it was resolved, and differs with anything but the log level', async () => {
    const { dir, cleanup } = await tempDir('hostsync-digest-');
    try {
      await writeTree(dir, { 'hostsync.json': JSON.stringify({ baseUrl: 'http://127.0.0.1:9', defaultTarget: 'staging', targets: { staging: { deployment: 'dep_s' }, production: { deployment: 'dep_p' } } }) });
      const env = { HOSTSYNC_API_KEY: 'hsk_secret_value_1234' };
      const base = await loadConfig({ flags: { dir }, env });
      // The default target, named or not; the key order of the object does not matter.
      const named = await loadConfig({ flags: { dir, target: 'staging' }, env });
      const reordered = Object.fromEntries(Object.entries(base).reverse()) as unknown as Config;
      expect(configDigest(named)).toBe(configDigest(base));
      expect(configDigest(reordered)).toBe(configDigest(base));
      expect(configDigest({ ...base, logLevel: 'debug' })).toBe(configDigest(base));
      const others = [
        await loadConfig({ flags: { dir, target: 'production' }, env }),
        await loadConfig({ flags: { dir }, env: { ...env, HOSTSYNC_FS: 'no-exec' } }),
        await loadConfig({ flags: { dir }, env: { HOSTSYNC_API_KEY: 'hsk_secret_value_5678' } }),
        { ...base, ignore: ['dist/'] },
      ];
      for (const other of others) expect(configDigest(other)).not.toBe(configDigest(base));
      expect(configDigest(base)).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await cleanup();
    }
  });
});
