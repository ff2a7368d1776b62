import busboy from 'busboy';
import type { Request } from 'express';
import { ApiError, validationFailed } from '../http/errors';
import { MAX_UPLOAD_BYTES } from './languages';

/** An uploaded file, read whole (at most MAX_UPLOAD_BYTES). */
export interface UploadedFile {
  fileName: string;
  contentType: string | null;
  bytes: Buffer;
  /** The optional `name` form field. */
  name: string | null;
}

/** POST /knowledge-bases/:id/sources, the one route that takes multipart/form-data (app.ts lets it through). */
const UPLOAD_PATH = /^\/api\/v2\/developers\/knowledge-bases\/[^/]+\/sources\/?$/;

export const isMultipart = (req: Pick<Request, 'headers'>) =>
  /^multipart\/form-data\s*;/i.test(req.headers['content-type'] ?? '');

/** Whether a request is a file upload to a knowledge base (the only multipart body the API reads). */
export const isKnowledgeUpload = (req: Pick<Request, 'method' | 'path' | 'headers'>) =>
  req.method === 'POST' && UPLOAD_PATH.test(req.path) && isMultipart(req);

const tooLarge = () =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', `The file is over the ${MAX_UPLOAD_BYTES / (1024 * 1024)} MB limit`);

/**
 * Reads the one `file` part of a multipart/form-data body with busboy (a streaming parser: the bytes
 * past the limit are read and dropped, never held), plus an optional `name` field. 413 for a file over
 * 20 MB, 400 naming `file` when there is none or more than one.
 */
export function readUpload(req: Request): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { files: 1, fileSize: MAX_UPLOAD_BYTES, fields: 4, fieldSize: 1000, parts: 6 },
      });
    } catch {
      reject(validationFailed(['body: not a readable multipart/form-data body']));
      return;
    }
    let file: UploadedFile | undefined;
    let name: string | null = null;
    let problem: ApiError | undefined;
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      if (field !== 'file')
        problem ??= validationFailed([`${field}: unknown part (send the file as \`file\`)`]);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        problem = tooLarge();
      });
      stream.on('end', () => {
        if (field === 'file' && !problem)
          file = {
            fileName: info.filename || 'upload',
            contentType: info.mimeType || null,
            bytes: Buffer.concat(chunks),
            name,
          };
      });
    });
    parser.on('field', (field, value) => {
      if (field === 'name') name = value.trim().slice(0, 200) || null;
      else problem ??= validationFailed([`${field}: unknown field (only \`file\` and \`name\`)`]);
    });
    parser.on('filesLimit', () => {
      problem ??= validationFailed(['file: send one file per request']);
    });
    parser.on('error', () => reject(validationFailed(['body: not a readable multipart/form-data body'])));
    parser.on('close', () => {
      if (problem) return reject(problem);
      if (!file) return reject(validationFailed(['file: required (a multipart part named `file`)']));
      resolve({ ...file, name: file.name ?? name });
    });
    req.pipe(parser);
  });
}
