// One gzip member from cached, already-deflated parts and a small fresh tail, so a scrape compresses only the tail.
import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * Raw deflate of `data` ending in a sync flush instead of a final block: the
 * output ends byte-aligned, so further deflate streams can follow and the
 * whole decodes as one stream (each part refers back only into itself).
 */
export function deflateOpen(data: Buffer): Buffer {
  return deflateRawSync(data, { level: PARTS_LEVEL, finishFlush: constants.Z_SYNC_FLUSH });
}

/**
 * The first gzip scrape after a publish deflates every changed family while
 * Prometheus waits. On exposition text (measured at 100k series, 10.7 MB)
 * level 1 takes a third of the default level's time (51 vs 142 ms) for a body
 * 9% larger (12.8% vs 11.8% of the plain size).
 */
const PARTS_LEVEL = 1;

export interface DeflatedPrefix {
  /** `deflateOpen` outputs, in order. */
  readonly parts: readonly Buffer[];
  /** CRC-32 and length of the uncompressed prefix. */
  readonly crc: number;
  readonly length: number;
}

// RFC 1952 member header: magic, CM=deflate, no flags, no mtime, XFL=0, OS=unknown.
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]);

/**
 * gzip(prefix + tail) as the chunks of a single gzip member (a second member
 * would be dropped by clients that read only the first).
 */
export function gzipWithTail(prefix: DeflatedPrefix, tail: Buffer): Buffer[] {
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(tail, prefix.crc), 0);
  trailer.writeUInt32LE((prefix.length + tail.length) % 2 ** 32, 4);
  return [HEADER, ...prefix.parts, deflateRawSync(tail), trailer];
}
