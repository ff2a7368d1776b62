import type { Knex } from 'knex';
import type { AppContext, CoreContext } from '../../common/context';

export type RecordingSide = 'caller' | 'agent';
type Samples = { pcm: Int16Array; sampleRate: number };

/**
 * Keeps a turn's audio as MP3 (encoded off the event loop, in the speech threads): the caller's
 * utterance and the reply as it was sent. Once per turn and side.
 */
export async function keepTurnAudio(
  ctx: Pick<AppContext, 'speech' | 'orm'>,
  sessionId: string,
  turnIndex: number,
  audio: Partial<Record<RecordingSide, Samples>>,
): Promise<void> {
  const sides = (Object.entries(audio) as [RecordingSide, Samples | undefined][]).filter(
    (e): e is [RecordingSide, Samples] => e[1] !== undefined && e[1].pcm.length > 0,
  );
  for (const [side, { pcm, sampleRate }] of sides) {
    const mp3 = await ctx.speech.encodeMp3(pcm, sampleRate);
    await keepMp3(ctx, sessionId, turnIndex, side, mp3, Math.round((pcm.length / sampleRate) * 1000));
  }
}

export async function keepMp3(
  ctx: Pick<AppContext, 'orm'>,
  sessionId: string,
  turnIndex: number,
  side: RecordingSide,
  mp3: Uint8Array,
  durationMs: number,
): Promise<void> {
  await ctx.orm.em.getConnection().execute(
    `insert into session_turn_recordings (session_id, turn_index, side, mime, audio, duration_ms)
       values (?, ?, ?, 'audio/mpeg', ?, ?) on conflict do nothing`,
    [sessionId, turnIndex, side, Buffer.from(mp3.buffer, mp3.byteOffset, mp3.byteLength), durationMs],
  );
}

/** A turn's recording of one side, or undefined. */
export async function readTurnAudio(
  knex: Knex,
  sessionId: string,
  turnIndex: number,
  side: RecordingSide,
): Promise<{ mime: string; audio: Buffer } | undefined> {
  const [row] = await knex('session_turn_recordings')
    .select('mime', 'audio')
    .where({ session_id: sessionId, turn_index: turnIndex, side });
  return row;
}

/** Deletes recordings older than the retention (the housekeeping schedule); answers how many. */
export async function deleteExpiredRecordings(ctx: CoreContext): Promise<number> {
  const days = ctx.config.recordings.retentionDays;
  return ctx.orm.em
    .getConnection()
    .getKnex()('session_turn_recordings')
    .where(
      'created_at',
      '<',
      ctx.orm.em.getConnection().getKnex().raw(`now() - make_interval(days => ?)`, [days]),
    )
    .del();
}
