/**
 * The session's copy of its instruction files: an `InstructionsCache` that tells the session every time a load
 * really read files, so that the session can emit `instructionsLoaded` (a cache hit is no event: nothing new
 * was read, and an agent asking before every edit would otherwise flood the embedder's log).
 */
import { InstructionsCache, type CachedLoadOptions, type InstructionsResult, type LoadInstructionsOptions } from "../instructions/index.js";

export class SessionInstructionsCache extends InstructionsCache {
  /** Results handed out so far: a hit returns one of these, a load a new object. */
  private readonly handedOut = new WeakSet<InstructionsResult>();

  constructor(private readonly loaded: (result: InstructionsResult) => void) {
    super();
  }

  override async load(options: LoadInstructionsOptions, how: CachedLoadOptions = {}): Promise<InstructionsResult> {
    const result = await super.load(options, how);
    if (!this.handedOut.has(result)) {
      this.handedOut.add(result);
      this.loaded(result);
    }
    return result;
  }
}
