import path from 'node:path';

export type DecodedMp3 = { channelData: Float32Array[]; samplesDecoded: number; sampleRate: number };

/** An MP3 file decoded by mpg123 compiled to WebAssembly (its UMD build loads under jest's CommonJS). */
export async function decodeMp3(bytes: Uint8Array): Promise<DecodedMp3> {
  const { MPEGDecoder } = require(
    path.resolve(__dirname, '../../node_modules/mpg123-decoder/dist/mpg123-decoder.min.js'),
  );
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    return decoder.decode(bytes);
  } finally {
    decoder.free();
  }
}
