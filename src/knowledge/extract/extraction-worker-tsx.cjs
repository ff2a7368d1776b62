// The extraction pool's thread entry when the platform runs from its TypeScript source (tsx, jest):
// tsx's require hook registered in the thread, then the handler (thread.ts). Compiled, the pool loads
// extraction-worker.js directly.
require('tsx/cjs/api').register();
module.exports = require('./extraction-worker.ts');
