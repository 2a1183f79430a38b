import { describe, expect, it } from 'vitest';
import { createDownloadLinks, DOWNLOAD_LINK_TTL_MS, takesDownloadLink } from './download-links';

describe('one-time download links', () => {
  it('open their path once, within a minute', () => {
    let now = 1_000;
    const links = createDownloadLinks(() => now);
    const code = links.issue('session-a', '/api/bench/results');
    expect(links.redeem(code, '/api/bench/results')).toBe('session-a');
    expect(links.redeem(code, '/api/bench/results')).toBeNull();

    const late = links.issue('session-a', '/api/bench/results');
    now += DOWNLOAD_LINK_TTL_MS;
    expect(links.redeem(late, '/api/bench/results')).toBeNull();
  });

  it('are used up by a try on another path', () => {
    const links = createDownloadLinks(() => 0);
    const code = links.issue('session-a', '/models/tiny/config.json');
    expect(links.redeem(code, '/models/tiny/tokenizer.json')).toBeNull();
    expect(links.redeem(code, '/models/tiny/config.json')).toBeNull();
  });

  it('keep at most a thousand waiting, the oldest making room', () => {
    const links = createDownloadLinks(() => 0);
    const first = links.issue('s0', '/api/bench/results');
    const rest = Array.from({ length: 1_000 }, (_, at) =>
      links.issue(`s${(at % 100) + 1}`, '/api/bench/results'),
    );
    expect(links.redeem(first, '/api/bench/results')).toBeNull();
    expect(rest.every((code) => links.redeem(code, '/api/bench/results') !== null)).toBe(true);
  });

  it('keep sixteen waiting per session, so one session cannot push out another’s', () => {
    // The reviewer: any labeler could fill the server-wide room and void other users' links.
    const links = createDownloadLinks(() => 0);
    const others = links.issue('rosa', '/api/bench/results');
    const many = Array.from({ length: 2_000 }, () => links.issue('mallory', '/api/bench/results'));
    expect(links.redeem(others, '/api/bench/results')).toBe('rosa');
    const kept = many.filter((code) => links.redeem(code, '/api/bench/results') !== null);
    expect(kept).toEqual(many.slice(-16));
  });

  it('are given for downloads and model files only', () => {
    expect(
      ['/api/bench/results', '/models/tiny/config.json', '/api/datasets', '/trpc/auth.whoami'].map(
        takesDownloadLink,
      ),
    ).toEqual([true, true, false, false]);
  });
});
