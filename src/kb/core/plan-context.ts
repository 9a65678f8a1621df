/** What plan builders need from the store, and helpers they share. */

import { KbError } from "../../common/errors.js";
import type { Logger } from "../../logger.js";
import type { KbSettings, MapDescriptor } from "./types.js";

export interface PlanContext {
  root: string;
  settings: KbSettings;
  logger: Logger;
  maps(): Promise<MapDescriptor[]>;
}

/** `stale_write` naming the current hash when `ifMatch` is set and differs. */
export function checkIfMatch(
  what: string,
  currentHash: string | null,
  ifMatch: string | undefined,
): void {
  if (ifMatch === undefined || ifMatch === null || ifMatch === "") return;
  if (currentHash === null) {
    throw new KbError(
      "stale_write",
      `${what} does not exist any more (if_match ${ifMatch} was given)`,
      {
        current: null,
      },
    );
  }
  if (currentHash !== ifMatch) {
    throw new KbError(
      "stale_write",
      `${what} changed since it was read: current hash is ${currentHash}; re-read it and retry with that if_match`,
      { current: currentHash },
    );
  }
}
