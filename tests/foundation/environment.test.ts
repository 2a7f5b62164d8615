import { computeFingerprint } from '../../src/environment';

// Digests computed independently with: printf '%s' '<input>' | md5sum
describe('computeFingerprint', () => {
  it.each([
    [{ git_commit: 'abc', git_dirty: false, node_version: 'v20.0.0', platform: 'linux-x64' }, '6f6abb8a'],
    [{ git_commit: 'unknown', git_dirty: false, node_version: 'v20.20.2', platform: 'linux-x64' }, 'a11f74e2'],
    [
      { git_commit: '0123456789abcdef0123456789abcdef01234567', git_dirty: true, node_version: 'v22.1.0', platform: 'darwin-arm64' },
      'b50127c1',
    ],
  ])('MD5 of commit:dirty:node:platform, first 8 hex (%o)', (fields, expected) => {
    expect(computeFingerprint(fields)).toBe(expected);
  });
});
