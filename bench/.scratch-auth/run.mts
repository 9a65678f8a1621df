import { BenchContext } from "../context.js";
import { run } from "../auth.js";
const ctx = await BenchContext.create();
try {
  const s = await run(ctx);
  console.log(JSON.stringify(s, null, 1));
} finally {
  await ctx.close();
}
