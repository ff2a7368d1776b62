import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** sox's arguments for raw PCM16 mono at `rate`. */
export const raw = (rate: number) => ['-t', 'raw', '-r', String(rate), '-e', 'signed', '-b', '16', '-c', '1'];

/** PCM16 from one rate to another, through sox (an independent resampler). */
export function soxResample(samples: Int16Array, from: number, to: number): Int16Array {
  const out = execFileSync('sox', [...raw(from), '-', ...raw(to), '-'], {
    input: Buffer.from(samples.buffer),
  });
  return new Int16Array(out.buffer, out.byteOffset, out.length / 2);
}

/** The keys multimon-ng (a real decoder; it reads raw PCM16 at 22 050 Hz) hears in `samples`. */
export function multimonDecodes(samples: Int16Array, sampleRate: number): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vp-dtmf-')), 'tones.raw');
  const at22050 = sampleRate === 22_050 ? samples : soxResample(samples, sampleRate, 22_050);
  fs.writeFileSync(file, Buffer.from(at22050.buffer, at22050.byteOffset, at22050.byteLength));
  const out = execFileSync('multimon-ng', ['-q', '-c', '-a', 'DTMF', '-t', 'raw', file], {
    encoding: 'utf8',
  });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return [...out.matchAll(/^DTMF: (.)$/gm)].map((m) => m[1]).join('');
}

/** A beep: a sine of `hz` for `seconds`, made by sox. */
export function soxBeep(hz: number, seconds: number, rate: number): Int16Array {
  const out = execFileSync('sox', [
    '-n',
    ...raw(rate),
    '-',
    'synth',
    String(seconds),
    'sine',
    String(hz),
    'vol',
    '0.5',
  ]);
  return new Int16Array(out.buffer, out.byteOffset, out.length / 2);
}
