/**
 * Independent readers of the rendered files, so the writers are not checked against themselves:
 * an INI parse of a systemd unit (sections, repeated keys) and an XML plist parse (the types
 * the agent uses: dict, array, string, true, false), with entity decoding.
 */

export type Ini = Record<string, Record<string, string[]>>;

export function parseIni(text: string): Ini {
  const out: Ini = {};
  let section: Record<string, string[]> | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const head = /^\[(.+)\]$/.exec(line);
    if (head) {
      out[head[1] as string] ??= {};
      section = out[head[1] as string];
      continue;
    }
    const eq = line.indexOf("=");
    if (eq < 0 || !section) throw new Error(`not an INI line: ${line}`);
    const key = line.slice(0, eq);
    section[key] = [...(section[key] ?? []), line.slice(eq + 1)];
  }
  return out;
}

type PlistValue = string | boolean | PlistValue[] | { [key: string]: PlistValue };

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const decode = (s: string) => {
  if (/&(?!\w+;)/.test(s)) throw new Error(`a bare & in ${JSON.stringify(s)}`);
  return s.replace(/&(\w+);/g, (_, n: string) => {
    const c = ENTITIES[n];
    if (c === undefined) throw new Error(`unknown entity &${n};`);
    return c;
  });
};

export function parsePlist(text: string): PlistValue {
  // Tags (attributes allowed), text; the <?xml?> declaration and <!DOCTYPE> are skipped.
  const tokens = [...text.matchAll(/<[?!][^>]*>|<(\/?)(\w+)(?:\s[^>]*?)?(\/?)>|([^<]+)/g)].filter(
    (m) => m[2] !== undefined || (m[4] !== undefined && m[4].trim() !== ""),
  );
  if (text.includes("<") && /[<>]/.test(text.replace(/<[^<>]*>/g, "")))
    throw new Error("a bare < or > outside a tag");
  let i = tokens.findIndex((m) => m[2] === "plist") + 1;
  if (i === 0) throw new Error("no <plist> element");
  const next = () => {
    const t = tokens[i++];
    if (!t) throw new Error("unexpected end of plist");
    return t;
  };
  const value = (): PlistValue => {
    const open = next();
    const tag = open[2];
    if (open[3] === "/") {
      if (tag === "true") return true;
      if (tag === "false") return false;
      throw new Error(`unexpected <${tag}/>`);
    }
    if (tag === "string") {
      const body = tokens[i]?.[4] !== undefined ? decode(next()[4] as string) : "";
      if (next()[2] !== "string") throw new Error("unclosed <string>");
      return body;
    }
    if (tag === "array") {
      const items: PlistValue[] = [];
      while (tokens[i]?.[1] !== "/") items.push(value());
      next();
      return items;
    }
    if (tag === "dict") {
      const dict: Record<string, PlistValue> = {};
      while (tokens[i]?.[1] !== "/") {
        if (next()[2] !== "key") throw new Error("a dict entry without <key>");
        const key = decode(next()[4] as string);
        next(); // </key>
        dict[key] = value();
      }
      next();
      return dict;
    }
    throw new Error(`unexpected <${tag}>`);
  };
  return value();
}
