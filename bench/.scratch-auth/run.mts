import { run } from "../auth.js";
import { BenchContext } from "../context.js";
const ctx = await BenchContext.create();
try {
  const s = await run(ctx);
  console.log(JSON.stringify(s, null, 1));
} catch (e) {
  console.error("BENCH FAILED", e);
}
await ctx.close().catch(() => {});
