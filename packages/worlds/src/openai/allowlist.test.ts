import { describe, expect, it } from 'vitest';
import { assertAllowedHost, chatCompletionsUrl, HostNotAllowedError } from './allowlist';

describe('assertAllowedHost', () => {
  it('admits this machine by default, IPv6 included', () => {
    for (const url of ['http://127.0.0.1:8000', 'http://localhost/v1', 'http://[::1]:9000/v1']) {
      expect(() => assertAllowedHost(url)).not.toThrow();
    }
  });

  it('refuses any other host with a clear error', () => {
    expect(() => assertAllowedHost('https://api.openai.com/v1')).toThrow(
      new HostNotAllowedError('https://api.openai.com/v1', 'api.openai.com', [
        '127.0.0.1',
        'localhost',
        '::1',
      ]),
    );
    expect(() => assertAllowedHost('https://api.openai.com/v1')).toThrow(
      'endpoint host "api.openai.com" (https://api.openai.com/v1) is not in the allowlist [127.0.0.1, localhost, ::1]; add it to the allowed endpoint hosts to use it',
    );
    expect(() => assertAllowedHost('http://127.0.0.2:8000')).toThrow(HostNotAllowedError);
    expect(() => assertAllowedHost('file:///etc/passwd')).toThrow(
      'must use http or https, not file:',
    );
    expect(() => assertAllowedHost('127.0.0.1:8000/v1')).toThrow('is not a valid absolute URL');
  });

  it('takes a configured list, with wildcard subdomains', () => {
    const allowlist = ['gpu-1.lab', '*.vllm.internal'];
    expect(() => assertAllowedHost('http://GPU-1.lab:8000', allowlist)).not.toThrow();
    expect(() => assertAllowedHost('http://a.vllm.internal', allowlist)).not.toThrow();
    expect(() => assertAllowedHost('http://vllm.internal', allowlist)).toThrow(HostNotAllowedError);
    expect(() => assertAllowedHost('http://127.0.0.1', allowlist)).toThrow(HostNotAllowedError);
  });
});

describe('chatCompletionsUrl', () => {
  it('accepts a base URL with or without /v1', () => {
    expect(
      ['http://h:1', 'http://h:1/', 'http://h:1/v1', 'http://h:1/v1/', 'http://h:1/proxy'].map(
        chatCompletionsUrl,
      ),
    ).toEqual([
      'http://h:1/v1/chat/completions',
      'http://h:1/v1/chat/completions',
      'http://h:1/v1/chat/completions',
      'http://h:1/v1/chat/completions',
      'http://h:1/proxy/v1/chat/completions',
    ]);
  });
});
