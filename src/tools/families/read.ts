/**
 * The read family: every read-only tool that answers from concepts, indexes, logs and history.
 * Split by subject into read-concepts.ts, read-kb.ts and read-find.ts.
 */
import type { ToolSpec } from "../spec.js";
import { conceptReadTools } from "./read-concepts.js";
import { findTools } from "./read-find.js";
import { kbReadTools } from "./read-kb.js";

export const readTools: ToolSpec[] = [...kbReadTools, ...conceptReadTools, ...findTools];
