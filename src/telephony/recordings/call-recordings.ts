import type { Response } from 'express';
import type { Knex } from 'knex';
import type { CoreContext } from '../../common/context';
import { wavHeader } from '../../outbound/wav';
import { decodeMulaw, PHONE_LINE_AUDIO } from '../audio';
import { RECORDING_CHUNK_MS, type RecordingChunk } from './call-recorder';

const CHUNK_SAMPLES = (RECORDING_CHUNK_MS * PHONE_LINE_AUDIO.sampleRate) / 1000;
/** Chunks read from the database at a time while a recording is sent (a minute of audio). */
const CHUNKS_PER_READ = 12;

/**
 * Stores one chunk of a call's recording, once (a chunk written again changes nothing); the call's
 * `recorded_at` says its recording began.
 */
export async function writeRecordingChunk(knex: Knex, callId: string, chunk: RecordingChunk): Promise<void> {
  await knex.raw(
    `with kept as (
       insert into call_recording_chunks (call_id, chunk_index, caller, agent)
         values (?, ?, ?, ?) on conflict do nothing returning call_id)
     update calls set recorded_at = now() where id in (select call_id from kept) and recorded_at is null`,
    [callId, chunk.index, chunk.caller, chunk.agent],
  );
}

/** The chunks a call's recording has: their indexes and lengths (samples), in order. */
async function recordingLayout(knex: Knex, callId: string) {
  const { rows } = await knex.raw<{ rows: { chunk_index: number; samples: number }[] }>(
    `select chunk_index, length(caller) as samples from call_recording_chunks
       where call_id = ? order by chunk_index`,
    [callId],
  );
  return rows;
}

/**
 * Sends a call's recording as a two-channel WAV file (PCM16, 8 kHz; the caller left, the agent
 * right), read a minute at a time: a chunk missing (a call cut off) is silence. Answers false,
 * sending nothing, when the call has no recording.
 */
export async function sendCallRecording(knex: Knex, callId: string, res: Response): Promise<boolean> {
  const layout = await recordingLayout(knex, callId);
  if (!layout.length) return false;
  const last = layout[layout.length - 1];
  const frames = last.chunk_index * CHUNK_SAMPLES + last.samples;
  res.status(200).type('audio/wav').setHeader('Cache-Control', 'private, max-age=3600');
  res.setHeader('Content-Length', String(44 + frames * 4));
  res.write(wavHeader(frames * 4, PHONE_LINE_AUDIO.sampleRate, 2));
  for (let from = 0; from <= last.chunk_index; from += CHUNKS_PER_READ) {
    const { rows } = await knex.raw<{ rows: { chunk_index: number; caller: Buffer; agent: Buffer }[] }>(
      `select chunk_index, caller, agent from call_recording_chunks
         where call_id = ? and chunk_index >= ? and chunk_index < ? order by chunk_index`,
      [callId, from, from + CHUNKS_PER_READ],
    );
    const byIndex = new Map(rows.map((r) => [r.chunk_index, r]));
    for (let index = from; index < Math.min(from + CHUNKS_PER_READ, last.chunk_index + 1); index++) {
      const length = index === last.chunk_index ? last.samples : CHUNK_SAMPLES;
      const chunk = byIndex.get(index);
      res.write(interleaved(chunk?.caller, chunk?.agent, length));
    }
  }
  res.end();
  return true;
}

/** `length` stereo PCM16 frames, little-endian: the caller's side left, the agent's right (silence where absent). */
function interleaved(caller: Buffer | undefined, agent: Buffer | undefined, length: number): Buffer {
  const left = caller ? decodeMulaw(caller) : new Int16Array(length);
  const right = agent ? decodeMulaw(agent) : new Int16Array(length);
  const out = Buffer.alloc(length * 4);
  for (let i = 0; i < length; i++) {
    out.writeInt16LE(left[i] ?? 0, i * 4);
    out.writeInt16LE(right[i] ?? 0, i * 4 + 2);
  }
  return out;
}

/**
 * Deletes call recordings begun more than RECORDING_RETENTION_DAYS ago, each whole (the housekeeping
 * schedule); answers how many chunks went.
 */
export async function deleteExpiredCallRecordings(ctx: CoreContext): Promise<number> {
  const knex = ctx.orm.em.getConnection().getKnex();
  const { rowCount } = await knex.raw<{ rowCount: number }>(
    `delete from call_recording_chunks where call_id in (
       select call_id from call_recording_chunks group by call_id
         having min(created_at) < now() - make_interval(days => ?))`,
    [ctx.config.recordings.retentionDays],
  );
  return rowCount ?? 0;
}
