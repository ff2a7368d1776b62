/**
 * How closely `caller` (PCM16) is a copy of some stretch of `reference` (PCM16, longer): the largest
 * normalized cross-correlation |r| over every lag of `caller` inside `reference`. An echo of the
 * agent's voice is the same waveform, delayed, scaled and lightly filtered: |r| well above 0.5 even
 * with line noise and G.711 twice over. Another voice, or noise, is not: |r| near 0.1. The sign is
 * ignored (some lines invert the echo). 0 when either side is silent.
 */
export function waveformMatch(caller: Int16Array, reference: Int16Array): number {
  const n = caller.length;
  if (reference.length < n || n === 0) return 0;
  let callerEnergy = 0;
  for (let k = 0; k < n; k++) callerEnergy += caller[k]! * caller[k]!;
  if (callerEnergy === 0) return 0;
  // the reference's energy under the caller's stretch, slid one sample at a time
  let referenceEnergy = 0;
  for (let k = 0; k < n; k++) referenceEnergy += reference[k]! * reference[k]!;
  let best = 0;
  for (let lag = 0; lag + n <= reference.length; lag++) {
    if (lag > 0) {
      const gone = reference[lag - 1]!;
      const come = reference[lag + n - 1]!;
      referenceEnergy += come * come - gone * gone;
    }
    // too quiet to be what came back (below -70 dBFS on average): nothing to match
    if (referenceEnergy < n * 10) continue;
    let dot = 0;
    for (let k = 0; k < n; k++) dot += caller[k]! * reference[lag + k]!;
    const r = Math.abs(dot) / Math.sqrt(callerEnergy * referenceEnergy);
    if (r > best) best = r;
  }
  return best;
}
