import { describe, expect, it } from 'vitest';
import { deploymentIdProblem } from '../../src/model/deployment-id.js';

describe('deployment ids (issue 44, item 9)', () => {
  it('passes the ids services use', () => {
    for (const id of ['dep_3f2a9c01b4d7', '3f6c1e2a-9b4d-4c1e-8f2a-1b3c5d7e9f00', '12345', '507f1f77bcf86cd799439011', '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'my.app', 'a..b', 'd']) {
      expect(deploymentIdProblem(id), id).toBeNull();
    }
  });

  it('refuses what would change the API path, naming why', () => {
    expect(deploymentIdProblem('..')).toBe('".." names a folder of the API, not a deployment');
    expect(deploymentIdProblem('.')).toBe('"." names a folder of the API, not a deployment');
    expect(deploymentIdProblem('a/../b')).toBe('it holds "/"');
    expect(deploymentIdProblem('.hidden')).toBe('it starts with "."');
    for (const id of ['', 'a?b', 'a#b', 'a%2Fb', 'a b', 'a\\b', 'a\nb', 'x'.repeat(129)]) expect(deploymentIdProblem(id), id).not.toBeNull();
  });
});
