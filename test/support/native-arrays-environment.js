/**
 * jest's node environment, with the host's typed-array constructors. onnxruntime-node (the VAD's
 * runtime) checks tensor data with `instanceof Float32Array`; the test sandbox has typed arrays of
 * its own, so an array made on one side of it fails the other side's check. Test files that run
 * the model name this environment in a `@jest-environment` docblock.
 */
const { TestEnvironment } = require('jest-environment-node');

const TYPED_ARRAYS = [
  'ArrayBuffer',
  'SharedArrayBuffer',
  'DataView',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
];

class NativeArraysEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of TYPED_ARRAYS) this.global[name] = globalThis[name];
  }
}

module.exports = NativeArraysEnvironment;
