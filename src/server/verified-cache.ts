// The credentials bcrypt has already accepted, as SHA-256 digests of user,
// hash and password (never a password itself): a bounded set, oldest out
// first. Looking a digest up leaks nothing useful through timing: a guess's
// digest shares no structure with the right one's.

/** As exporter-toolkit's cache: a handful of scrapers' credentials, with room to spare. */
const CAPACITY = 100;

export class VerifiedCache {
  /** Hex digests, oldest first (a Set keeps insertion order). */
  private readonly entries = new Set<string>();

  constructor(private readonly capacity = CAPACITY) {}

  has(key: Buffer): boolean {
    return this.entries.has(key.toString('hex'));
  }

  add(key: Buffer): void {
    const hex = key.toString('hex');
    this.entries.delete(hex);
    this.entries.add(hex);
    const oldest = this.entries.values().next().value;
    if (this.entries.size > this.capacity && oldest !== undefined) this.entries.delete(oldest);
  }
}
