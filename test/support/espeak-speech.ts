import { Worker } from 'node:worker_threads';

/**
 * eSpeak NG (WebAssembly, `@echogarden/espeak-ng-emscripten`) speaking in a worker thread: the engine
 * is an ES module, which a worker loads natively while jest's module system cannot.
 */
const SPEAK = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
(async () => {
  const { default: factory } = await import(pathToFileURL(workerData.engine).href);
  const engine = new (await factory()).eSpeakNGWorker();
  const status = engine.set_voice(workerData.voice);
  if (status !== 0) throw new Error('eSpeak NG has no voice ' + workerData.voice);
  const chunks = [];
  engine.synthesize(workerData.text, (chunk) => { chunks.push(Int16Array.from(chunk)); return 0; });
  const samples = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const c of chunks) { samples.set(c, offset); offset += c.length; }
  parentPort.postMessage({ samples, sampleRate: engine.get_samplerate() }, [samples.buffer]);
})().catch((error) => { throw error; });
`;

/** `text` spoken by eSpeak NG: mono PCM16 at the engine's rate (22 050 Hz). */
export function speakWithEspeak(
  text: string,
  voice = 'gmw/en-US',
): Promise<{ pcm16: Int16Array; sampleRate: number }> {
  const engine = require.resolve('@echogarden/espeak-ng-emscripten');
  return new Promise((resolve, reject) => {
    const worker = new Worker(SPEAK, { eval: true, workerData: { engine, text, voice } });
    worker.once('message', (m: { samples: Int16Array; sampleRate: number }) => {
      // copied into this realm's typed array (jest's sandbox has its own constructors)
      resolve({ pcm16: Int16Array.from(m.samples), sampleRate: m.sampleRate });
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the eSpeak worker exited with ${code}`)));
  });
}
