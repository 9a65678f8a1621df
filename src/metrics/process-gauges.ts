/**
 * Process metrics read when Prometheus scrapes (docs/decisions.md "Metrics: process metrics are
 * read at scrape"), under prom-client's default names: nothing runs between scrapes, where
 * prom-client's own default collectors observe every garbage collection and sample the event loop.
 */
import { readdirSync } from "node:fs";
import { Counter, Gauge, type Registry } from "prom-client";

export function registerProcessGauges(registry: Registry): void {
  const registers = [registry];
  const cpu = (name: string, help: string, pick: (u: NodeJS.CpuUsage) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(pick(process.cpuUsage()) / 1e6);
      },
    });
  cpu("process_cpu_user_seconds_total", "User CPU time spent in seconds", (u) => u.user);
  cpu("process_cpu_system_seconds_total", "System CPU time spent in seconds", (u) => u.system);
  const gauge = (name: string, help: string, read: () => number | null) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const value = read();
        if (value !== null) this.set(value);
      },
    });
  const started = Date.now() / 1000 - process.uptime();
  gauge(
    "process_start_time_seconds",
    "Start time of the process since the epoch, seconds",
    () => started,
  );
  gauge("process_resident_memory_bytes", "Resident memory size in bytes", () =>
    process.memoryUsage.rss(),
  );
  gauge(
    "nodejs_heap_size_used_bytes",
    "Process heap size used in bytes",
    () => process.memoryUsage().heapUsed,
  );
  gauge(
    "nodejs_heap_size_total_bytes",
    "Process heap size in bytes",
    () => process.memoryUsage().heapTotal,
  );
  gauge("process_open_fds", "Open file descriptors (Linux)", () => {
    try {
      return readdirSync("/proc/self/fd").length;
    } catch {
      return null; // not Linux: no /proc
    }
  });
}
