/**
 * The console's page table (src/console/README.md "Adding a page"): first match wins, so a
 * pattern with a literal tail (`/console/:kb/c/*id/history`) goes before the catch-all concept
 * pattern. Sign-in, sign-out and static files are served by the dispatcher (server.ts) before
 * this table: they need no signed-in viewer.
 */
import type { ConsolePage } from "../router.js";
import { activityPage } from "./activity.js";
import { assetPage } from "./asset.js";
import { auditPage } from "./audit.js";
import { browsePage } from "./browse.js";
import { commitPage } from "./commit.js";
import { conceptPage } from "./concept.js";
import { conflictResolvePage, conflictsPage } from "./conflicts.js";
import { historyPage } from "./history.js";
import { homePage } from "./home.js";
import { kbPage } from "./kb.js";
import { searchPage } from "./search.js";

export const PAGES: readonly ConsolePage[] = [
  homePage,
  kbPage,
  browsePage,
  searchPage,
  assetPage,
  activityPage,
  historyPage,
  commitPage,
  auditPage,
  conflictsPage,
  conflictResolvePage,
  conceptPage,
];
