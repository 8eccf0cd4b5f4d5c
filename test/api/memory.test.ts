import { describe, expect, it } from 'vitest';
import { defaultRamMB, npmInstallNeed } from '../../src/api/memory.js';

describe('the memory rule both sides apply (hosting-api.md, Memory guidance)', () => {
  it('no dependency: no install; any dependency: 512 MB; a Svelte/Next-class framework: 1024 MB', () => {
    expect(npmInstallNeed('{"name":"a"}')).toBeNull();
    expect(npmInstallNeed('{"dependencies":{}}')).toBeNull();
    expect(npmInstallNeed('{"dependencies":{"express":"^4"}}')).toMatchObject({ needMB: 512, what: 'npm install', framework: null, dependencies: 1 });
    expect(npmInstallNeed('{"devDependencies":{"left-pad":"1"}}')?.needMB).toBe(512);
    expect(npmInstallNeed('{"dependencies":{"react":"18"},"devDependencies":{"next":"14"}}')).toMatchObject({ needMB: 1024, what: 'npm install of a next build', framework: 'next' });
    expect(npmInstallNeed('{"dependencies":{"@sveltejs/kit":"2"}}')?.needMB).toBe(1024);
    expect(npmInstallNeed('{"dependencies": ')).toBeNull();
  });
  it('the default size: 256 MB, or the equal share of the free pool when smaller', () => {
    expect(defaultRamMB(8192, 32)).toBe(256);
    expect(defaultRamMB(8192, 4)).toBe(256);
    expect(defaultRamMB(3000, 30)).toBe(100);
    expect(defaultRamMB(1000, 0)).toBe(0);
  });
});
