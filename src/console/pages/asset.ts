/**
 * `/console/<kb>/asset/<path>`: an asset under data/ (`asset_read`, as the viewer). Raster images
 * are served with their type so a concept can show them; anything else — SVG included, which can
 * carry script — is a download (attachment, octet-stream), never rendered by the browser.
 */
import { ConsoleError } from "../outcome.js";
import type { ConsolePage } from "../router.js";

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
};

export const assetPage: ConsolePage = {
  pattern: "/console/:kb/asset/*path",
  methods: ["GET"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    const path = req.params.path as string;
    if (!kbs.canRead(req.viewer, kb)) throw new ConsoleError("not_found", "not found");
    const asset = await kbs.read<{ content_base64: string }>(req.viewer, kb, "asset_read", {
      path,
    });
    const bytes = Buffer.from(asset.content_base64, "base64");
    const name = path.split("/").pop() ?? "asset";
    const ext = name.includes(".") ? (name.split(".").pop() ?? "").toLowerCase() : "";
    const type = IMAGE_TYPES[ext];
    return type === undefined
      ? { status: 200, bytes, contentType: "application/octet-stream", attachment: name }
      : { status: 200, bytes, contentType: type };
  },
};
