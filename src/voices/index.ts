export { wholeSpeechStream } from './pcm-stream';
export { SpeechSegmenter } from './segmenter';
export { CALLER_SAMPLE_RATE, createSpeechDetector } from './speech-detector';
export { findCatalogVoice } from './voices.catalog';
