/**
 * THE one composition of a tool call (design.md §3, design.md P5). Every handler runs only through
 * `runToolCall`, in this order:
 *
 *  1. resolve the tool          unknown → `tool not found: <name>` (audited as unknown_tool,
 *                               authorized as an unclassified write: denied unless admin)
 *  2. validate the arguments    invalid → authorized as an unclassified write; admin gets the
 *                               `invalid_argument: …` error naming the argument. Validated and
 *                               parsed ONCE (args.ts checkArgs): targets, audit and the handler
 *                               all use that result
 *  3. build the AuthRequest     targets → TargetFacts read from the store
 *  4. authorize                 denial renders exactly `forbidden` / `not found`
 *  5. audit attempt             required mode: a failed append rejects the call here, before
 *                               the handler can run
 *  6. remote sync (sync.md)     reads: pull when due, best-effort; writes: pull when due under
 *                               the lock (a conflict answers `conflict`), and after the commit
 *                               push (debounced or inline); sync-step.ts
 *  7. run                       reads: the handler; writes: under the KB lock → re-authorize
 *                               with facts read again → beginWrite → handler → ONE commit
 *                               `<tool>: <target>` → endWrite. A whole-KB pass (spec
 *                               `wholeKbPass`) first takes a slot of the KB's pass queue
 *                               (pass-queue.ts): it waits, or answers `busy`
 *  8. audit completion          outcome, duration, commit sha, allow-listed resources
 */
import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  type AuditOutcome,
  type AuditRecordInput,
  type AuditSink,
  REQUIRED_MODE_REJECTION,
} from "../audit/types.js";
import { authorize } from "../auth/decide.js";
import type { AuthRequest, Decision } from "../auth/types.js";
import { isKbError, KbError } from "../common/errors.js";
import type { Logger } from "../logger.js";
import type { CallMetrics } from "../metrics/call-metrics.js";
import type { KbRuntime } from "../runtime/kb-runtime.js";
import { type CheckedArgs, canonicalArgs, checkArgs, runChecked } from "../tools/args.js";
import { CallReads } from "../tools/call-reads.js";
import { denialError, renderError, renderResult } from "../tools/result.js";
import type { ToolSpec } from "../tools/spec.js";
import type { CallContext } from "./context.js";
import { textResult } from "./surface.js";
import {
  markDegraded,
  syncAfterCommit,
  syncBeforeRead,
  syncBeforeWrite,
  withSyncNote,
} from "./sync-step.js";
import { buildAuthRequest, unclassifiedWrite } from "./target-facts.js";

export interface CallDeps {
  kb: string;
  runtime: KbRuntime;
  resolve: (name: string) => ToolSpec | undefined;
  audit: AuditSink | null;
  logger: Logger;
  now?: () => Date;
  /** Told once per call, at its end (docs/decisions.md "Metrics: one hook at the end of a call"). */
  metrics?: CallMetrics;
}

/** Result of the steps before the handler, carried into the audit completion. */
interface Outcome {
  result: CallToolResult;
  outcome: AuditOutcome;
  commitSha?: string | null;
}

export const SHUTTING_DOWN =
  "server is shutting down: call refused, retry against a running server";

/** Runs one call (steps 1–7 above), counted as in flight until its completion is appended. */
export function runToolCall(
  deps: CallDeps,
  name: string,
  rawArgs: unknown,
  ctx: CallContext,
): Promise<CallToolResult> {
  const tracker = deps.runtime.calls;
  // Nothing ran and nothing is recorded: the audit sink may already be closing too.
  if (tracker.closing) return Promise.resolve(textResult(SHUTTING_DOWN, true));
  return tracker.track(runCall(deps, name, rawArgs, ctx), deps.kb, deps.logger);
}

async function runCall(
  deps: CallDeps,
  name: string,
  rawArgs: unknown,
  ctx: CallContext,
): Promise<CallToolResult> {
  const started = performance.now();
  const spec = deps.resolve(name);
  const requestId = ctx.requestId || randomUUID();

  // 1–4: resolve, validate, classify, authorize.
  const gate = await preflight(deps, spec, name, rawArgs, ctx);

  const resources = spec
    ? auditResources(spec, "spec" in gate ? gate.args.record : rawRecord(spec, rawArgs))
    : {};
  const record = (phase: AuditRecordInput["phase"]): AuditRecordInput => ({
    phase,
    request_id: requestId,
    principal_id: ctx.principal.id,
    transport: ctx.transport,
    kb: deps.kb,
    tool: name,
    read_only: spec?.readOnly ?? false,
    resources,
  });

  // 5: the attempt is durable before anything else happens.
  if (deps.audit) {
    try {
      await deps.audit.append(record("attempt"));
    } catch (err) {
      deps.logger.error(`audit attempt for ${name} on ${deps.kb} failed: ${messageOf(err)}`);
      if (deps.audit.mode === "required") {
        deps.metrics?.called(deps.kb, spec?.name, "audit_unavailable", ctx.transport, started);
        return textResult(REQUIRED_MODE_REJECTION, true);
      }
    }
  }

  // 6–7: sync and run (only when the preflight let the call through).
  const done: Outcome = "spec" in gate ? await execute(deps, gate, ctx) : gate;

  // 8: completion. The call already happened; a failure here is logged, not returned.
  if (deps.audit) {
    const completion: AuditRecordInput = {
      ...record("completion"),
      outcome: done.outcome,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      commit_sha: done.commitSha ?? null,
    };
    await deps.audit.append(completion).catch((err: unknown) => {
      deps.logger.error(`audit completion for ${name} on ${deps.kb} failed: ${messageOf(err)}`);
    });
  }
  deps.metrics?.called(deps.kb, spec?.name, done.outcome, ctx.transport, started);
  return done.result;
}

/** A call the preflight let through, or the outcome it answered with instead. */
type Gate = Outcome | Admitted;

interface Admitted {
  spec: ToolSpec;
  args: CheckedArgs;
  decision: Decision & { allow: true };
  /** What the authorization facts read, for a read's handler (writes read again under the lock). */
  reads: CallReads;
}

async function preflight(
  deps: CallDeps,
  spec: ToolSpec | undefined,
  name: string,
  rawArgs: unknown,
  ctx: CallContext,
): Promise<Gate> {
  const policy = ctx.principal.policy;
  if (!spec) {
    const decision = authorize(policy, unclassifiedWrite(deps.kb));
    if (!decision.allow) return denial(decision.reason);
    return { result: textResult(`tool not found: ${name}`, true), outcome: "unknown_tool" };
  }
  let args: CheckedArgs;
  let request: AuthRequest;
  const reads = new CallReads(deps.runtime.store);
  try {
    // The one validation and parse of the call; the handler runs on `args.parsed`.
    args = checkArgs(spec, rawArgs);
    request = await buildAuthRequest(deps.runtime.store, deps.kb, spec, args.record, policy, reads);
  } catch (err) {
    const decision = authorize(policy, unclassifiedWrite(deps.kb));
    if (!decision.allow) return denial(decision.reason);
    return failure(deps, name, err, "invalid_arguments");
  }
  const decision = authorize(policy, request);
  if (!decision.allow) return denial(decision.reason);
  return { spec, args, decision, reads };
}

async function execute(
  deps: CallDeps,
  { spec, args, decision, reads }: Admitted,
  ctx: CallContext,
): Promise<Outcome> {
  const runtime = deps.runtime;
  const toolCtx = (visibility: Decision & { allow: true }) => ({
    runtime,
    visibility: visibility.visibility,
    principalId: ctx.principal.id,
    now: deps.now ?? (() => new Date()),
    ...(ctx.progress ? { progress: ctx.progress } : {}),
  });
  const run = async (): Promise<Outcome> => {
    if (spec.readOnly) {
      await syncBeforeRead(runtime); // 6
      const value = markDegraded(
        runtime,
        await runChecked(spec, args, { ...toolCtx(decision), reads }),
      );
      return { result: textResult(renderResult(value)), outcome: "success" };
    }
    return await runtime.store.withLock(async () => {
      await syncBeforeWrite(runtime, spec, args.record, decision.visibility); // 6: before the facts are read again
      // Facts may have changed while the call waited for the lock (D118: re-authorize here).
      const again = authorize(
        ctx.principal.policy,
        await buildAuthRequest(runtime.store, deps.kb, spec, args.record, ctx.principal.policy),
      );
      if (!again.allow) return denial(again.reason);
      const session = runtime.beginWrite();
      try {
        const value = await runChecked(spec, args, toolCtx(again));
        const target = session.targets.length > 0 ? session.targets.join(", ") : spec.name;
        const commitSha = await runtime.commitSession(`${spec.name}: ${target}`);
        const note = await syncAfterCommit(runtime, commitSha, again.visibility); // 6: push, never fails the call
        const shown = renderResult(withSyncNote(value, note));
        return { result: textResult(shown), outcome: "success" as const, commitSha };
      } finally {
        runtime.endWrite();
      }
    });
  };
  try {
    // The mount attaches sync and embeddings after serving (mount.ts): step 6 needs them.
    if (runtime.ready) await runtime.ready();
    // 7: a whole-KB pass waits for a slot of the KB's pass queue, or is answered `busy`.
    if (spec.wholeKbPass?.(args.record))
      return await runtime.passes.run(ctx.principal.id, spec.name, run);
    return await run();
  } catch (err) {
    return failure(
      deps,
      spec.name,
      err,
      isKbError(err) && err.code !== "internal" ? "application_error" : "internal_error",
    );
  }
}

function denial(reason: "forbidden" | "not_found_hidden"): Outcome {
  return { result: textResult(renderError(denialError(reason)), true), outcome: reason };
}

function failure(deps: CallDeps, tool: string, err: unknown, outcome: AuditOutcome): Outcome {
  if (!(err instanceof KbError) || err.code === "internal") {
    // Internal failures: full detail to stderr, a short message (no stack) to the caller.
    deps.logger.error(
      `${tool} on ${deps.kb} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
  }
  return { result: textResult(renderError(err, [deps.runtime.store.root]), true), outcome };
}

/**
 * Only the registry's allow-listed fields (id-like strings, boolean and enum flags; never bodies
 * or frontmatter) of `record`: the validated arguments when the call got that far, else
 * {@link rawRecord}. Anything but a string or a boolean is left out, so an object smuggled into
 * an id field is never recorded.
 */
function auditResources(spec: ToolSpec, record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of spec.auditFields) {
    const value = record[field];
    if (typeof value === "string" || typeof value === "boolean") out[field] = value;
  }
  return out;
}

/**
 * Raw arguments that did not validate, with Go argument names renamed to ours as authorization
 * would see them (args.ts); not an object: nothing.
 */
function rawRecord(spec: ToolSpec, args: unknown): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return {};
  return canonicalArgs(spec, args as Record<string, unknown>, true);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
