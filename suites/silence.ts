/**
 * Tells a request the target did not answer from a target that is gone. A
 * request without response is held, not judged, until the target shows which:
 * an answer to any request (the target is alive: the held one failed on its
 * own and is judged), or `lostAfter` requests in a row without one (the target
 * is gone: the held ones are dropped, the rest of the run is not run). With
 * nothing else in flight to tell, a probe is sent: GET /pets?limit=1, the
 * preflight's request. Requests sent concurrently all time out together when a
 * target dies; without this, each would stand as a failure of its own rule.
 */
export class SilenceWatch {
  #streak = 0;
  #held: { resolve: () => void; reject: (error: Error) => void }[] = [];
  #lost: Error | undefined;
  #probing = false;

  constructor(
    readonly options: {
      lostAfter: number;
      /** Requests sent and not yet completed. */
      inFlight: () => number;
      /** Sends the probe; its completion comes back through {@link completed}. */
      probe: () => Promise<void>;
      /** Called once, when the target is taken as gone, with why. */
      onLost: (why: string) => Error;
    },
  ) {}

  /**
   * Called with each completed request: `why` is undefined when it got a
   * response, else what happened. Resolves when the exchange may be judged;
   * rejects with the loss when the target is gone.
   */
  completed(why: string | undefined): Promise<void> {
    if (this.#lost) return Promise.reject(this.#lost);
    if (why === undefined) {
      this.#streak = 0;
      for (const held of this.#held.splice(0)) held.resolve();
      return Promise.resolve();
    }
    if (++this.#streak >= this.options.lostAfter) {
      this.#lost = this.options.onLost(`${why}, ${this.options.lostAfter} requests in a row`);
      for (const held of this.#held.splice(0)) held.reject(this.#lost);
      return Promise.reject(this.#lost);
    }
    const decided = new Promise<void>((resolve, reject) => this.#held.push({ resolve, reject }));
    this.#askIfNoneWill();
    return decided;
  }

  /** A probe's completion: it decides for the held requests, and is itself never judged. */
  probed(why: string | undefined): void {
    this.#probing = false;
    // A silent probe is held like any request, which asks again while nothing else is in flight.
    this.completed(why).catch(() => {});
  }

  #askIfNoneWill(): void {
    if (this.#lost || this.#probing || this.#held.length === 0 || this.options.inFlight() > 0) return;
    this.#probing = true;
    void this.options.probe();
  }

  /** Ends the watch (the run was interrupted): held requests are dropped with `error`. */
  stop(error: Error): void {
    this.#lost ??= error;
    for (const held of this.#held.splice(0)) held.reject(error);
  }
}
