/** How a receiver checks `X-Service-Signature` (docs/webhooks.md "Verifying a delivery"), in Node and Python. */
export const VERIFY_SNIPPETS = {
  node: `import { createHmac, timingSafeEqual } from 'node:crypto';

// rawBody: the request body's exact bytes; header: X-Service-Signature; secret: whsec_…
export function verify(rawBody, header, secret, toleranceSeconds = 300) {
  const fields = header.split(',').map((part) => part.trim().split('='));
  const t = Number(fields.find(([key]) => key === 't')?.[1]);
  if (!t || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(\`\${t}.\`).update(rawBody).digest();
  return fields.some(([key, value]) => {
    if (key !== 'v1') return false;
    const given = Buffer.from(value, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}`,
  python: `import hashlib, hmac, time

# raw_body: the request body's exact bytes; header: X-Service-Signature; secret: whsec_…
def verify(raw_body: bytes, header: str, secret: str, tolerance_seconds: int = 300) -> bool:
    pairs = [p.strip().split("=", 1) for p in header.split(",") if "=" in p]
    t = next((int(v) for k, v in pairs if k == "t" and v.isdigit()), None)
    if t is None or abs(time.time() - t) > tolerance_seconds:
        return False
    expected = hmac.new(secret.encode(), f"{t}.".encode() + raw_body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(v, expected) for k, v in pairs if k == "v1")`,
} as const;
