/**
 * Kept apart from the renderers (service.ts) so that the Runtime, which every CLI command builds,
 * does not load the PDF library.
 */
/**
 * PDFs rendered one at a time per thread, with the thread's other requests let through between
 * two: rendering is CPU work on the thread that answers reads too, and a hundred PDFs rendered
 * side by side (pdf-lib yields between batches of objects) made every read on the thread wait for
 * nearly all of them. One at a time, a read waits for one render at most.
 */
export class RenderTurns {
  #busy = false;
  readonly #waiting: (() => void)[] = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#busy) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#busy = true;
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      // the next render starts after the I/O that came in meanwhile (setImmediate), not before it
      if (next) setImmediate(next);
      else this.#busy = false;
    }
  }
}

