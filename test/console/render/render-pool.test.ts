/**
 * RenderPool: large shared renderings made on a real worker thread equal the in-process
 * rendering; a thread that cannot start (or dies) leaves the work to the main thread, with the
 * same result; the main thread keeps running while the thread renders.
 */
import { afterEach, describe, expect, it } from "vitest";
import { renderShared } from "../../../src/console/render/markdown.js";
import { RenderPool } from "../../../src/console/render/render-pool.js";

const PLACE = { kb: "kb", fromPath: "data/p/page.md" };
const TEXT = "## Part\n\nSee [[p/a|a]], [b](b.md) and <script>x</script>.\n\n".repeat(8_000);

const pools: RenderPool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

describe("RenderPool", () => {
  it("renders on the worker thread exactly what the main thread would, and keeps the loop free", async () => {
    const pool = new RenderPool();
    pools.push(pool);
    await pool.render("start [[p/a]]", PLACE); // the thread is up
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const made = await pool.render(TEXT, PLACE);
    clearInterval(timer);
    expect(made).toEqual(renderShared(TEXT, PLACE));
    expect(pool.counters).toEqual({ offThread: 2, inProcess: 0 });
    // The main thread's timers ran while the thread rendered (an in-process render blocks them).
    expect(ticks).toBeGreaterThan(3);
  }, 60_000);

  it("a thread that cannot start leaves the rendering to the main thread, same bytes", async () => {
    const pool = new RenderPool(new URL("./no-such-worker.js", import.meta.url));
    pools.push(pool);
    const made = await pool.render(TEXT, PLACE);
    expect(made).toEqual(renderShared(TEXT, PLACE));
    expect(pool.counters).toEqual({ offThread: 0, inProcess: 1 });
  });

  it("a closed pool starts a new thread for the next rendering", async () => {
    const pool = new RenderPool();
    pools.push(pool);
    await pool.render("one [[p/a]]", PLACE);
    await pool.close();
    expect((await pool.render("two [[p/a]]", PLACE)).anchors).toEqual(["p/a"]);
    expect(pool.counters.offThread).toBe(2);
  }, 60_000);
});
