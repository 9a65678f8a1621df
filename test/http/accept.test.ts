import { describe, expect, it } from "vitest";
import { acceptedReplies } from "../../src/http/accept.js";

describe("acceptedReplies: which MCP reply types an Accept header allows", () => {
  it.each([
    [undefined, { json: true, eventStream: false }],
    ["", { json: true, eventStream: false }],
    ["application/json", { json: true, eventStream: false }],
    ["Application/JSON; charset=utf-8", { json: true, eventStream: false }],
    ["*/*", { json: true, eventStream: false }],
    ["application/*;q=0.5", { json: true, eventStream: false }],
    ["text/event-stream", { json: false, eventStream: true }],
    ["application/json, text/event-stream", { json: true, eventStream: true }],
    ["application/json;q=0, text/event-stream", { json: false, eventStream: true }],
    ["text/event-stream;q=0, */*", { json: true, eventStream: false }],
    ["text/html", { json: false, eventStream: false }],
    ["application/json;q=bogus", { json: false, eventStream: false }],
  ])("%s → %o", (header, expected) => {
    expect(acceptedReplies(header)).toEqual(expected);
  });
});
