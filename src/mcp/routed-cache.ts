/**
 * One RoutedSurface per distinct KB set (D288: tools/list differs per binding), built once and
 * kept in a small LRU so the set of bindings a server sees cannot grow memory without bound.
 */
import type { KbSurface } from "./kb-surface.js";
import { RoutedSurface } from "./routed-surface.js";

export const DEFAULT_ROUTED_CACHE_SIZE = 64;

export class RoutedSurfaceCache {
  readonly #surfaces: ReadonlyMap<string, KbSurface>;
  readonly #max: number;
  readonly #entries = new Map<string, RoutedSurface>();

  readonly #unavailable?: (name: string) => string | undefined;

  /** `unavailable`: why a configured KB could not be opened (see RoutedSurface). */
  constructor(
    surfaces: readonly KbSurface[],
    max = DEFAULT_ROUTED_CACHE_SIZE,
    unavailable?: (name: string) => string | undefined,
  ) {
    this.#surfaces = new Map(surfaces.map((s) => [s.name, s]));
    this.#unavailable = unavailable;
    this.#max = Math.max(1, max);
  }

  /**
   * The routed surface over `names` (every name must be a mounted KB; callers validate first).
   * Order and duplicates do not matter: the binding is the sorted set.
   */
  get(names: readonly string[]): RoutedSurface {
    const sorted = [...new Set(names)].sort();
    const key = sorted.join("\u0000");
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const surfaces = sorted.map((name) => {
      const surface = this.#surfaces.get(name);
      if (!surface) throw new Error(`no mounted KB named ${name}`);
      return surface;
    });
    const built = new RoutedSurface(surfaces, this.#unavailable);
    this.#entries.set(key, built);
    if (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
    return built;
  }

  get size(): number {
    return this.#entries.size;
  }
}
