/** A worker module for module-worker.test.ts: answers each message with its type-checked double. */
import { parentPort } from "node:worker_threads";

const double = (n: number): number => n * 2;
parentPort?.on("message", (n: number) => parentPort?.postMessage(double(n)));
