/** Realistic agent queries over the generated KB, shared by the search, HTTP and stdio sections. */

/** Queries that hit: single words, pairs and phrases of the generator's vocabulary. */
export const HIT_QUERIES = [
  "gateway",
  "backup restore",
  "firmware upgrade",
  "nightly snapshot",
  "resolver",
  "router firewall",
  "latency alert",
  "certificate renewal",
  "disk quota",
  "rollback release",
  "replica",
  "vpn",
];
