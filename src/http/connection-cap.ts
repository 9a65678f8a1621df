/**
 * The connection cap (docs/decisions.md "Connection cap with headroom for probes"). Up to `max`
 * connections are served in full; the next `headroom` ones are admitted as "over capacity" (the
 * core answers only /health and /ready on them, so an operator can see a saturated server); beyond
 * that a connection is closed at once. One warning per burst: logged when the cap is first
 * exceeded, re-armed once the count is back to half the cap.
 */
import type { Socket } from "node:net";
import type { Logger } from "../logger.js";

export class ConnectionCap {
  readonly #max: number;
  readonly #headroom: number;
  readonly #logger: Logger;
  readonly #over = new WeakSet<Socket>();
  #open = 0;
  #warned = false;

  constructor(max: number, logger: Logger) {
    this.#max = Math.max(1, Math.floor(max));
    this.#headroom = Math.max(8, Math.ceil(this.#max / 8));
    this.#logger = logger;
  }

  /** Counts `socket` (until it closes); false = close it now, it is past the headroom too. */
  admit(socket: Socket): boolean {
    if (this.#open >= this.#max + this.#headroom) {
      this.#warn();
      return false;
    }
    this.#open++;
    socket.once("close", () => {
      this.#open--;
      if (this.#open <= Math.floor(this.#max / 2)) this.#warned = false;
    });
    if (this.#open > this.#max) {
      this.#over.add(socket);
      this.#warn();
    }
    return true;
  }

  /** True when `socket` was admitted over the cap. */
  isOver(socket: Socket): boolean {
    return this.#over.has(socket);
  }

  get open(): number {
    return this.#open;
  }

  #warn(): void {
    if (this.#warned) return;
    this.#warned = true;
    this.#logger.warn(
      `connection cap reached: ${this.#max} open connections (max_connections); further connections get 503 except /health and /ready, and are closed past ${this.#max + this.#headroom}; not logged again until the count falls back`,
    );
  }
}
