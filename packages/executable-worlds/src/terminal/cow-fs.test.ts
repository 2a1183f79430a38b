import { describe, expect, it } from 'vitest';
import { CowFs } from './cow-fs';

describe('copy-on-write file system', () => {
  it('forks share bytes but not changes', async () => {
    const parent = new CowFs();
    parent.writeFileSync('/w/a', 'one');
    const child = parent.fork();
    await child.writeFile('/w/a', 'two');
    await child.appendFile('/w/b', 'new');
    await parent.rm('/w/a');
    expect(await child.readFile('/w/a')).toBe('two');
    expect(await parent.exists('/w/a')).toBe(false);
    expect(await parent.exists('/w/b')).toBe(false);
    expect(child.getAllPaths()).toEqual(['/', '/w', '/w/a', '/w/b']);
  });

  it('a buffer handed out or taken in never aliases a stored file', async () => {
    const fs = new CowFs();
    const input = new TextEncoder().encode('abc');
    await fs.writeFile('/f', input);
    input[0] = 0x7a;
    const out = await fs.readFileBuffer('/f');
    out[1] = 0x7a;
    expect(await fs.readFile('/f')).toBe('abc');
  });

  it('captures stay frozen while the file system moves on', async () => {
    const fs = new CowFs();
    fs.writeFileSync('/f', 'v1');
    const captured = fs.capture();
    await fs.writeFile('/f', 'v2');
    await fs.mv('/f', '/g');
    fs.restoreEntries(captured);
    expect(await fs.readFile('/f')).toBe('v1');
    expect(await fs.exists('/g')).toBe(false);
  });

  it('reports errors with the codes just-bash commands translate', async () => {
    const fs = new CowFs();
    await expect(fs.readFile('/missing')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(fs.writeFile('/no/dir/f', 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    await fs.mkdir('/d');
    await fs.writeFile('/d/f', 'x');
    await expect(fs.rm('/d')).rejects.toMatchObject({ code: 'ENOTEMPTY' });
    await expect(fs.readdir('/d/f')).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});
