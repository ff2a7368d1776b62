import { VoicePlatform } from '../sdk/src';
import { interleaved } from './platform';

/**
 * The SDK's overhead (issue 44: ≤ 1 ms at p50): the same authenticated GET, one at a time, as a bare
 * `fetch` (the JSON read) and as `client.secrets.list()` (the SDK's transport, retry wrapper, error
 * mapping and page), interleaved round by round so both meet the same moments of the machine.
 */
export async function sdkOverhead(base: string, key: string, rounds = 500) {
  const client = new VoicePlatform({ apiKey: key, baseUrl: base });
  const url = `${base}/api/v2/developers/secrets`;
  const bare = async () => {
    const started = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (!res.ok) throw new Error(`bare fetch: ${res.status}`);
    await res.json();
    return performance.now() - started;
  };
  const sdk = async () => {
    const started = performance.now();
    await client.secrets.list();
    return performance.now() - started;
  };
  const [fetchStats, sdkStats] = await interleaved([bare, sdk], rounds, 50);
  return { fetch: fetchStats!, sdk: sdkStats!, overheadP50: sdkStats!.p50 - fetchStats!.p50 };
}
