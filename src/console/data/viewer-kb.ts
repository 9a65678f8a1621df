/**
 * A governance page's way into one KB: the core's access check (ConsoleKbs.runtime), then the
 * viewer's ViewScope. A KB the viewer may not read answers the same 404 as a missing one.
 */
import type { ConsoleKbs, KbAccess } from "../kbs.js";
import { ConsoleError } from "../outcome.js";
import type { Viewer } from "../types.js";
import type { ViewScope } from "./commit-view.js";
import { viewScope } from "./scope.js";

export interface GovKb {
  access: KbAccess;
  scope: ViewScope;
}

/** The KB `kb` as `viewer` may see it; throws ConsoleError `not_found` when it may not. */
export function govKb(kbs: ConsoleKbs, viewer: Viewer, kb: string): GovKb {
  const access = kbs.runtime(viewer, kb);
  if (access === null) throw new ConsoleError("not_found", "not found");
  return { access, scope: viewScope(access.runtime, access.visibility) };
}
